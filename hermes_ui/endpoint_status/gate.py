"""Endpoint-scoped pages of an endpoint without the session API say so, and nothing else.

A middleware (``settings.MIDDLEWARE``): a view taking an ``endpoint`` argument
for an endpoint whose stored probe says it has no session API answers 503
with the one sentence (``session_api.notice``) and a link to the endpoints
page, before the view asks Hermes anything: no 502, no "bad_request", no
"Press Refresh", no chat form.
"""

from __future__ import annotations

from django.conf import settings
from django.shortcuts import render

from hermes_ui.access.rules import access_of
from hermes_ui.endpoint_status import session_api


class SessionApiGate:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        endpoint_id = view_kwargs.get("endpoint")
        if not isinstance(endpoint_id, str):
            return None
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return None  # the login page comes first
        endpoint = settings.HERMES_ENDPOINTS.get(endpoint_id)
        if endpoint is None:
            return None  # the view answers its own 404
        if access_of(user).role_on(endpoint_id, any_source=True) is None:
            # Not theirs: the door (or the API's token check) answers its 404; a 503
            # here would tell that the endpoint exists, and its version.
            return None
        found = session_api.absent(endpoint)
        if found is None:
            return None
        return page(request, found)


def page(request, found: dict):
    response = render(request, "endpoint_status/no_session_api.html", {"absent": found}, status=503)
    response["Retry-After"] = "300"
    return response
