"""The dashboard's URLs plus views that fail the way a database outage does."""

from django.contrib.auth.decorators import login_not_required
from django.db import IntegrityError, OperationalError
from django.http import HttpResponse
from django.urls import include, path

calls: list[str] = []


@login_not_required
def flaky(request):
    """Fails like a restarted database on its first call, then serves."""
    calls.append(request.method)
    if len(calls) == 1:
        raise OperationalError("server closed the connection unexpectedly")
    return HttpResponse("served")


@login_not_required
def down(request):
    calls.append(request.method)
    raise OperationalError("connection refused")


@login_not_required
def bug(request):
    calls.append(request.method)
    raise IntegrityError("a real bug, not an outage")


urlpatterns = [
    path("test/flaky/", flaky),
    path("test/down/", down),
    path("test/bug/", bug),
    path("", include("hermes_ui.urls")),
]

handler500 = "hermes_ui.web.errors.server_error"
