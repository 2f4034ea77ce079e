"""The door of /scim/v2/: the bearer secret in ``HERMES_UI_SCIM_TOKEN``, nothing else.

django-scim2 wraps every SCIM view's dispatch in the class named by its
``AUTH_CHECK_MIDDLEWARE`` setting; this one replaces its "is a Django user
signed in" check, so no session or cookie is ever consulted, and logs neither
the token nor any request body.
"""

from __future__ import annotations

import hmac
import json
import logging

from django.conf import settings
from django.http import HttpResponse
from django_scim import constants

log = logging.getLogger("hermes_ui.scim")


def scim_error(status: int, detail: str, scim_type: str | None = None) -> HttpResponse:
    """An RFC 7644 §3.12 error answer."""
    body = {"schemas": [constants.SchemaURI.ERROR], "detail": detail, "status": str(status)}
    if scim_type:
        body["scimType"] = scim_type
    return HttpResponse(json.dumps(body), status=status, content_type=constants.SCIM_CONTENT_TYPE)


def token_matches(header: str) -> bool:
    """Compare ``Authorization`` with ``Bearer <token>`` in constant time."""
    expected = f"Bearer {settings.HERMES_UI_SCIM_TOKEN}".encode()
    return hmac.compare_digest(header.encode(), expected)


class BearerCheck:
    """404 while SCIM is off; 401 (with a SCIM error body) without the right bearer."""

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request, *args, **kwargs):
        if not settings.HERMES_UI_SCIM_TOKEN:
            return scim_error(404, "Not found")
        header = request.headers.get("Authorization", "")
        if not token_matches(header):
            log.warning(
                "scim request refused: %s Authorization, %s %s",
                "wrong" if header else "no",
                request.method,
                request.path,
            )
            answer = scim_error(401, "A valid bearer token is needed")
            answer["WWW-Authenticate"] = 'Bearer realm="scim"'
            return answer
        answer = self.get_response(request, *args, **kwargs)
        answer["Cache-Control"] = "no-store"
        return answer
