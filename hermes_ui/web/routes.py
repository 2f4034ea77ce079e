"""Session-scoped routes: the action comes first, the id last.

Every session-scoped page is ``/e/<endpoint>/<action>/<path:id>/``. Ids may
hold ``/`` (Hermes' fork accepts ``case-12/fork``), so an id at the end of
the path can never be read as an action of another session. The two ids no
path segment can carry, ``.`` and ``..`` (browsers resolve dot segments even
when percent-encoded), reach the same view through ``/e/<endpoint>/<action>/?id=``.
"""

from functools import wraps

from django.shortcuts import render
from django.urls import path

from hermes_ui.endpoints import get_endpoint

QUERY_SUFFIX = "_q"


def session_action(action: str, view, name: str) -> list:
    """The path route and the query-string route of one session-scoped action."""
    return [
        path(f"e/<str:endpoint>/{action}/<path:session_id>/", view, name=name),
        path(f"e/<str:endpoint>/{action}/", id_from_query(view), name=name + QUERY_SUFFIX),
    ]


def id_from_query(view):
    @wraps(view)
    def wrapper(request, endpoint):
        session_id = request.GET.get("id", "")
        if not session_id:
            return render(
                request,
                "sessions/bad_id.html",
                {"endpoint": get_endpoint(endpoint), "reason": "Which session? The id is missing."},
                status=400,
            )
        return view(request, endpoint=endpoint, session_id=session_id)

    return wrapper
