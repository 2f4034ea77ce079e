"""The versioned REST API, ``/api/v1/`` (django-ninja).

Bearer tokens only (``auth.TokenAuth``); every route checks the same roles,
masking and erasure as the page it mirrors by calling that page's domain
code. The OpenAPI document is ``/api/v1/openapi.json``, readable by anyone (it
holds no data; ``document.DocumentedApi`` declares every route's failures); the
browsable docs ``/api/v1/docs`` (swagger-ui from django-ninja's own static files,
served by the dashboard: no CDN) are a page, behind the browser login.
"""

import json

from django.shortcuts import render
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


class LocalSwagger(Swagger):
    """swagger-ui from django-ninja's bundled copy, always: ninja would pick its CDN
    template because "ninja" is no installed app (its templates and static files are
    listed in the settings instead)."""

    def render_page(self, request, api, **kwargs):
        self.settings["url"] = self.get_openapi_url(api, kwargs)
        context = {
            "swagger_settings": json.dumps(self.settings, indent=1),
            "api": api,
            # As ninja's page: a CSRF token only for an auth that checks one (the
            # API's bearer tokens do not).
            "add_csrf": any(getattr(auth, "csrf", False) for auth in api.auth or ()),
        }
        return render(request, self.template, context)


api = DocumentedApi(
    title="Hermes UI API",
    version="1",
    description="Sessions, lineage, review queues, usage and audit of the Hermes UI dashboard.",
    urls_namespace="api_v1",
    auth=TokenAuth(),
    docs=LocalSwagger(settings={"persistAuthorization": False}),
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
