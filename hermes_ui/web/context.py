"""Template context shared by every page: the endpoints the person may see, and their role.

On a page whose URL names an endpoint, ``can`` is the role there (on the
session's source, when the page is a session's); elsewhere it is the highest
role anywhere. ``can.instance_admin`` shows the instance's own settings.
"""

from django.conf import settings

from hermes_ui.access.rules import RANK, access_of, role_here
from hermes_ui.web.roles import ADMIN, REVIEWER, SUPPORT


def navigation(request):
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {"endpoints": [], "user_role": None, "can": _can(None, False)}
    access = access_of(user)
    match = getattr(request, "resolver_match", None)
    endpoint = match.kwargs.get("endpoint") if match is not None else None
    role = role_here(request, endpoint) if endpoint else access.highest()
    visible = access.endpoint_ids()
    return {
        "endpoints": [settings.HERMES_ENDPOINTS[ep] for ep in visible],
        "user_role": role,
        "can": _can(role, access.instance_admin),
    }


def _can(role, instance_admin: bool) -> dict:
    rank = RANK.get(role, 0) if role else 0
    return {
        "support": rank >= RANK[SUPPORT],
        "reviewer": rank >= RANK[REVIEWER],
        "admin": rank >= RANK[ADMIN],
        "instance_admin": instance_admin,
    }
