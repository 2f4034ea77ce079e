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

from django.db import connections
from django.template.loader import render_to_string

from hermes_ui.platform.outages import DATABASE, database_unreachable, waited_for_pool
from hermes_ui.web.errors import whole_page

SAFE_METHODS = ("GET", "HEAD")
_FLAG = "hermes_ui_database_unreachable"


def outage_response(request):
    """The 503 page, rendered without the database (no context processors, no user)."""
    from django.http import HttpResponse

    response = HttpResponse(render_to_string("errors/database.html"), status=503)
    response["Retry-After"] = "5"
    exc = sys.exc_info()[1]
    DATABASE.failed(exc, "a page")
    setattr(response, _FLAG, "waited" if waited_for_pool(exc) else "died")
    return whole_page(request, response)


def current_exception_is_outage() -> bool:
    return database_unreachable(sys.exc_info()[1])


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
