"""When the dashboard's own database is unreachable: a clear 503 in seconds, and one retry.

The pool's wait and the connect timeout (``HERMES_UI_DB_WAIT_SECONDS``) bound
how long a page waits for PostgreSQL; the error that follows reaches
Django's ``handler500`` (``errors.server_error``), which answers this
module's 503 page instead of "something went wrong". A safe read (GET or
HEAD) whose connection died under it, as on a database restart, is served
once more on a fresh connection before anyone sees that page. A page that
already waited for the pool in vain is not: a second wait would only double
the time to the 503.
"""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError, connections
from django.template.loader import render_to_string

from hermes_ui.web.errors import whole_page

SAFE_METHODS = ("GET", "HEAD")
_FLAG = "hermes_ui_database_unreachable"


def unreachable(exc: BaseException | None) -> bool:
    """Is ``exc`` the database being unreachable (rather than a bug in a query)?"""
    return isinstance(exc, OperationalError | InterfaceError) or _waited_for_pool(exc)


def outage_response(request):
    """The 503 page, rendered without the database (no context processors, no user)."""
    from django.http import HttpResponse

    response = HttpResponse(render_to_string("errors/database.html"), status=503)
    response["Retry-After"] = "5"
    setattr(response, _FLAG, "waited" if _waited_for_pool(sys.exc_info()[1]) else "died")
    return whole_page(request, response)


def _waited_for_pool(exc: BaseException | None) -> bool:
    """No connection came from the pool in time (Django wraps psycopg_pool's PoolTimeout)."""
    return any(type(e).__name__ == "PoolTimeout" for e in (exc, getattr(exc, "__cause__", None)))


def current_exception_is_outage() -> bool:
    return unreachable(sys.exc_info()[1])


class DatabaseOutageMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        if getattr(response, _FLAG, None) == "died" and request.method in SAFE_METHODS:
            # The connection may have died with a restart: drop it, read once more.
            for conn in connections.all(initialized_only=True):
                conn.close_if_unusable_or_obsolete()
                if not conn.is_usable():
                    conn.close()
            response = self.get_response(request)
        return response
