"""Template context for every page: the endpoints without the session API (a banner)."""

from hermes_ui.endpoint_status import session_api


def session_api_banner(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    return {"no_session_api": session_api.absent_endpoints()}
