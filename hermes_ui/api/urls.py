"""``/api/v1/``. The API's routes answer for themselves (a Bearer token, JSON errors), so
the login redirect is lifted from them; the docs and the OpenAPI document stay pages
behind the browser login."""

from django.contrib.auth.decorators import login_not_required
from django.urls import URLPattern, include, path, re_path

from hermes_ui.api.errors import not_found
from hermes_ui.api.main import api

_PAGES = {"openapi-json", "openapi-view"}


def _open(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLPattern) and pattern.name not in _PAGES:
            pattern.callback = login_not_required(pattern.callback)
    return patterns


_patterns, _app, _namespace = api.urls
urlpatterns = [
    path("api/v1/", include((_open(_patterns), _app), namespace=_namespace)),
    re_path(r"^api/(?P<rest>.*)$", login_not_required(not_found), name="api_not_found"),
]
