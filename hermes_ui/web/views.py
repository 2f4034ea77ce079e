from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.core.exceptions import PermissionDenied
from django.db import DatabaseError, connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET

from hermes_ui.access.rules import access_of
from hermes_ui.background.workers import liveness
from hermes_ui.platform import redis_link
from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.web.links import list_url


@require_GET
def home(request: HttpRequest) -> HttpResponse:
    """The default endpoint's session list, or the first the person may see.

    An endpoint without a grant does not exist for the person, so the default
    one is skipped when it is hidden from them. A setup page when none is
    configured; a refusal when none is theirs (never a redirect to a 404).
    """
    if not all_endpoints():
        return render(request, "no_endpoint.html", status=503)
    seen = access_of(request.user).endpoint_ids()
    if settings.HERMES_ENDPOINT_ID in seen:
        return redirect(list_url(settings.HERMES_ENDPOINT_ID))
    if seen:
        return redirect(list_url(seen[0]))
    raise PermissionDenied("No endpoint of this dashboard is granted to you yet.")


@login_not_required
@require_GET
async def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness: the process answers. It checks nothing else, so a restart never follows an
    outage of the database or of Redis (see ``readyz``)."""
    return HttpResponse("ok", content_type="text/plain")


@login_not_required
@require_GET
async def readyz(request: HttpRequest) -> HttpResponse:
    """Readiness: 503 while the database, or a configured Redis, does not answer.

    Both probes are async views: the ASGI handler serves them without a page
    thread, so they answer while every page thread waits on a slow Hermes.
    A second line says whether a task worker is alive (its heartbeat row); none
    alive does not make the web process unready: jobs wait in the queue.
    """
    checks, workers = await sync_to_async(_checks, thread_sensitive=False)()
    failures = [name for name, ok in checks if not ok]
    headers = {"Cache-Control": "no-store"}
    if failures:
        text = "not ready: " + ", ".join(failures) + " unreachable\n"
        return HttpResponse(text, content_type="text/plain", status=503, headers=headers)
    text = f"ready\ntask workers: {workers}\n"
    return HttpResponse(text, content_type="text/plain", headers=headers)


def _checks():
    try:
        database = _database_ok()
        workers = _workers() if database else "unknown"
        return (("database", database), ("redis", _redis_ok())), workers
    finally:
        connection.close()


def _workers() -> str:
    try:
        return liveness.workers().words
    except DatabaseError:  # the table is missing (not migrated yet): say so, stay ready
        return "unknown"


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
