"""``/api/v1/``. The API's routes answer for themselves (a Bearer token, JSON errors), so
the login redirect is lifted from them. The OpenAPI document is open to anyone: it holds
no data, and client generators, Schemathesis and gateways read it with a token or none.
The swagger page stays a page behind the browser login."""

from functools import wraps

from asgiref.sync import iscoroutinefunction
from django.contrib.auth.decorators import login_not_required
from django.http import HttpResponseNotAllowed, JsonResponse
from django.urls import URLPattern, include, path, re_path

from hermes_ui.api.errors import not_found
from hermes_ui.api.main import api

_PAGES = {"openapi-view"}


def _json_405(response):
    """django-ninja answers a method a route lacks with a text body: JSON like the rest."""
    if not isinstance(response, HttpResponseNotAllowed):
        return response
    body = {"code": "method_not_allowed", "message": f"This route takes {response['Allow']}."}
    answer = JsonResponse(body, status=405)
    answer["Allow"] = response["Allow"]
    return answer


def _route(view):
    if iscoroutinefunction(view):

        @wraps(view)
        async def async_route(request, *args, **kwargs):
            return _json_405(await view(request, *args, **kwargs))

        return login_not_required(async_route)

    @wraps(view)
    def route(request, *args, **kwargs):
        return _json_405(view(request, *args, **kwargs))

    return login_not_required(route)


def _open(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLPattern) and pattern.name not in _PAGES:
            pattern.callback = _route(pattern.callback)
    return patterns


_patterns, _app, _namespace = api.urls
urlpatterns = [
    path("api/v1/", include((_open(_patterns), _app), namespace=_namespace)),
    # [\s\S]: a path holding a line break (%0A) is an API path too, answered in JSON.
    re_path(r"^api/(?P<rest>[\s\S]*)$", login_not_required(not_found), name="api_not_found"),
]
