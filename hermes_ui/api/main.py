"""The versioned REST API, ``/api/v1/`` (django-ninja).

Bearer tokens only (``auth.TokenAuth``); every route checks the same roles,
masking and erasure as the page it mirrors by calling that page's domain
code. The OpenAPI document is ``/api/v1/openapi.json``, readable by anyone (it
holds no data; ``document.DocumentedApi`` declares every route's failures); the
browsable docs ``/api/v1/docs`` (swagger-ui from django-ninja's own static files,
served by the dashboard: no CDN) are a page, behind the browser login.
"""

from ninja.openapi.docs import Swagger

from hermes_ui.api import errors
from hermes_ui.api.auth import TokenAuth
from hermes_ui.api.document import DocumentedApi
from hermes_ui.api.routes import (
    audit,
    changes,
    chat,
    deletions,
    endpoints,
    jobs,
    notes,
    outcomes,
    review,
    sessions,
    shares,
    usage,
    writes,
)

api = DocumentedApi(
    title="Hermes UI API",
    version="1",
    description="Sessions, lineage, review queues, usage and audit of the Hermes UI dashboard.",
    urls_namespace="api_v1",
    auth=TokenAuth(),
    docs=Swagger(settings={"persistAuthorization": False}),
)
errors.install(api)
for router in (
    endpoints,
    sessions,
    review,
    usage,
    audit,
    writes,
    changes,
    chat,
    deletions,
    notes,
    jobs,
    outcomes,
    shares,
):
    api.add_router("", router.router)
