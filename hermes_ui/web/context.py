"""Template context shared by every page: the endpoints and the user's role."""

from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.web.roles import ADMIN, REVIEWER, SUPPORT, has_role, role_of


def navigation(request):
    user = getattr(request, "user", None)
    return {
        "endpoints": all_endpoints(),
        "user_role": role_of(user) if user else None,
        "can": {
            "support": bool(user) and has_role(user, SUPPORT),
            "reviewer": bool(user) and has_role(user, REVIEWER),
            "admin": bool(user) and has_role(user, ADMIN),
        },
    }
