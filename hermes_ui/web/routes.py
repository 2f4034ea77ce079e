"""Session-scoped routes: the action comes first, the id last.

Every session-scoped page is ``/e/<endpoint>/<action>/<path:id>/``. Ids may
hold ``/`` (Hermes' fork accepts ``case-12/fork``), so an id at the end of
the path can never be read as an action of another session. The two ids no
path segment can carry, ``.`` and ``..`` (browsers resolve dot segments even
when percent-encoded), reach the same view through ``/e/<endpoint>/<action>/?id=``.
"""

from functools import wraps

from asgiref.sync import iscoroutinefunction, sync_to_async
from django.urls import path

from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web.failures import bad_id

QUERY_SUFFIX = "_q"
_MISSING_ID = "Which session? Type a session id."


def session_action(action: str, view, name: str) -> list:
    """The path route and the query-string route of one session-scoped action."""
    return [
        path(f"e/<str:endpoint>/{action}/<path:session_id>/", view, name=name),
        path(f"e/<str:endpoint>/{action}/", id_from_query(view), name=name + QUERY_SUFFIX),
    ]


def id_from_query(view):
    if iscoroutinefunction(view):  # a download: stays async (see hermes_ui.asgi)

        @wraps(view)
        async def streaming(request, endpoint):
            session_id, missing = await sync_to_async(query_id)(request, endpoint)
            return missing or await view(request, endpoint=endpoint, session_id=session_id)

        return streaming

    @wraps(view)
    def wrapper(request, endpoint):
        session_id, missing = query_id(request, endpoint)
        return missing or view(request, endpoint=endpoint, session_id=session_id)

    return wrapper


def query_id(request, endpoint: str):
    """``(the ?id= of the request, None)``, or ``("", the 400 page)`` when it is missing."""
    session_id = request.GET.get("id", "")
    if not session_id:
        return "", bad_id(request, get_endpoint(endpoint), _MISSING_ID)
    return session_id, None
