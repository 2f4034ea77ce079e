"""Roles: support < reviewer < admin, held per endpoint (hermes_ui.access).

Views check roles on the server with ``role_required``: on a view whose URL
names an endpoint it is the person's role there (and on the session's source,
for a source-limited grant); elsewhere it is their highest role anywhere, and
the view shows only what ``access_of(user)`` lets them see. Instance
administration needs ``instance_admin_required`` (admin on ``*``). Templates
use ``can`` to decide what to show, a convenience, never the control.
"""

from functools import wraps
from inspect import iscoroutinefunction

from asgiref.sync import sync_to_async
from django.contrib.auth.middleware import LoginRequiredMiddleware as _LoginRequiredMiddleware
from django.core.exceptions import PermissionDenied

from hermes_ui.access.models import ADMIN, REVIEWER, ROLES, SUPPORT
from hermes_ui.access.rules import RANK, access_of, role_here
from hermes_ui.platform.db_steps import released
from hermes_ui.web.errors import forbidden

__all__ = [
    "ADMIN",
    "REVIEWER",
    "ROLES",
    "SUPPORT",
    "has_role",
    "instance_admin_required",
    "require_role",
    "role_of",
    "role_required",
]


def role_of(user, endpoint: str | None = None) -> str | None:
    """The person's role on ``endpoint`` (any source), or their highest role anywhere."""
    access = access_of(user)
    if endpoint is None:
        return access.highest()
    return access.role_on(endpoint, any_source=True)


def has_role(user, needed: str, endpoint: str | None = None) -> bool:
    role = role_of(user, endpoint)
    return role is not None and RANK[role] >= RANK[needed]


def require_role(user, needed: str, endpoint: str | None = None) -> None:
    if not has_role(user, needed, endpoint):
        raise PermissionDenied(f"This needs the {needed} role.")


def _allowed(request, needed: str, kwargs) -> bool:
    endpoint = kwargs.get("endpoint")
    if endpoint is None:
        return has_role(request.user, needed)
    role = role_here(request, endpoint)
    return role is not None and RANK[role] >= RANK[needed]


def _guard(allowed, message: str, on_refusal=None):
    def check(request, args, kwargs) -> None:
        if not allowed(request, kwargs):
            if on_refusal is not None:
                on_refusal(request, *args, **kwargs)
            raise PermissionDenied(message)

    def decorator(view):
        if iscoroutinefunction(view):

            @wraps(view)
            async def async_wrapper(request, *args, **kwargs):
                await sync_to_async(released(check))(request, args, kwargs)
                return await view(request, *args, **kwargs)

            return async_wrapper

        @wraps(view)
        def wrapper(request, *args, **kwargs):
            check(request, args, kwargs)
            return view(request, *args, **kwargs)

        return wrapper

    return decorator


def role_required(needed: str, *, on_refusal=None):
    """The view needs ``needed`` (or a higher role) on its endpoint; anyone else gets a 403.

    Without an endpoint in the URL, ``needed`` on at least one endpoint. That
    the endpoint (or session) exists for the person at all was settled before,
    by ``access.scope``: a 404 as for one that does not exist.
    ``on_refusal(request, *args, **kwargs)``, if given, runs before the 403 is
    raised: to answer 404 for what does not exist, or to audit the refusal.
    Works on async views too (the check is one database step off the loop).
    """
    return _guard(
        lambda request, kwargs: _allowed(request, needed, kwargs),
        f"This needs the {needed} role.",
        on_refusal,
    )


def instance_admin_required(view=None, *, on_refusal=None):
    """Instance administration (endpoints, access, webhooks, SSO links): admin on ``*``."""
    decorator = _guard(
        lambda request, kwargs: access_of(request.user).instance_admin,
        "This needs the admin role on every endpoint (*).",
        on_refusal,
    )
    return decorator(view) if view is not None else decorator


class RoleRequiredMiddleware:
    """A logged-in account without any grant sees nothing but a 403 page.

    Login is enforced by Django's LoginRequiredMiddleware; this closes the gap
    of an account that exists but was never given a role.
    """

    # "/s/": a share link decides itself who may open it (hermes_ui/shares/public.py).
    OPEN_PATHS = ("/accounts/", "/healthz", "/readyz", "/static/", "/scim/", "/s/")

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        if request.path.startswith(self.OPEN_PATHS):
            return self.get_response(request)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and role_of(user) is None:
            return forbidden(request, PermissionDenied("This needs the support role."))
        return self.get_response(request)


class LoginRequiredMiddleware(_LoginRequiredMiddleware):
    """Django's, except that a view open to everyone (``login_not_required``) is let
    through before the session is read: ``/healthz`` answers while the database,
    where sessions live, is down."""

    def process_view(self, request, view_func, view_args, view_kwargs):
        if not getattr(view_func, "login_required", True):
            return None
        return super().process_view(request, view_func, view_args, view_kwargs)
