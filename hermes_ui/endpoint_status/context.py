"""Template context for every page: the endpoints without the session API (a banner)."""

from hermes_ui.access.rules import access_of
from hermes_ui.endpoint_status import session_api
from hermes_ui.platform.endpoints import all_endpoints


def session_api_banner(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    access = access_of(user)
    if access.everything:
        return {"no_session_api": session_api.absent_endpoints()}
    # Only the endpoints this person may see: the banner names no other.
    seen = set(access.endpoint_ids())
    mine = [ep for ep in all_endpoints() if ep.id in seen]
    return {"no_session_api": session_api.absent_endpoints(mine) if mine else []}
