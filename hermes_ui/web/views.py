from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import DatabaseError, connection
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from hermes_ui import redis_link
from hermes_ui.endpoints import all_endpoints
from hermes_ui.web.links import list_url


@require_GET
def home(request):
    """The default endpoint's session list, or a setup page when none is configured."""
    if settings.HERMES_ENDPOINT_ID in settings.HERMES_ENDPOINTS:
        return redirect(list_url(settings.HERMES_ENDPOINT_ID))
    if all_endpoints():
        return redirect(list_url(all_endpoints()[0].id))
    return render(request, "no_endpoint.html", status=503)


@login_not_required
@require_GET
async def healthz(request):
    """Liveness: the process answers. It checks nothing else, so a restart never follows an
    outage of the database or of Redis (see ``readyz``)."""
    return HttpResponse("ok", content_type="text/plain")


@login_not_required
@require_GET
async def readyz(request):
    """Readiness: 503 while the database, or a configured Redis, does not answer.

    Both probes are async views: the ASGI handler serves them without a page
    thread, so they answer while every page thread waits on a slow Hermes.
    """
    checks = await sync_to_async(_checks, thread_sensitive=False)()
    failures = [name for name, ok in checks if not ok]
    headers = {"Cache-Control": "no-store"}
    if failures:
        text = "not ready: " + ", ".join(failures) + " unreachable\n"
        return HttpResponse(text, content_type="text/plain", status=503, headers=headers)
    return HttpResponse("ready\n", content_type="text/plain", headers=headers)


def _checks():
    try:
        return (("database", _database_ok()), ("redis", _redis_ok()))
    finally:
        connection.close()


def _database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    except DatabaseError:
        connection.close()
        return False
    return True


def _redis_ok() -> bool:
    return not redis_link.configured() or redis_link.ping()
