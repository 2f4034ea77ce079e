"""Roles: support < reviewer < admin, stored as Django groups.

Views check roles on the server with ``role_required``; templates only use
``can`` to decide what to show, which is a convenience, never the control.
"""

from functools import wraps
from inspect import iscoroutinefunction

from asgiref.sync import sync_to_async
from django.contrib.auth.middleware import LoginRequiredMiddleware as _LoginRequiredMiddleware
from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied

from hermes_ui.platform.db_steps import released
from hermes_ui.platform.prepared import Prepared
from hermes_ui.web.errors import forbidden

SUPPORT, REVIEWER, ADMIN = "support", "reviewer", "admin"
# Every page asks it (the role middleware): compiled once (platform.prepared).
_GROUP_NAMES = Prepared(lambda user_id: Group.objects.filter(user=user_id).values_list("name"))
ROLES = (SUPPORT, REVIEWER, ADMIN)
_RANK = {role: rank for rank, role in enumerate(ROLES, start=1)}


def role_of(user) -> str | None:
    if not getattr(user, "is_authenticated", False) or not user.is_active:
        return None
    if user.is_superuser:
        return ADMIN
    cached = getattr(user, "_hermes_role", False)
    if cached is not False:
        return cached  # type: ignore[return-value]
    names = {name for (name,) in _GROUP_NAMES.rows(user.pk)}
    role = max((r for r in ROLES if r in names), key=_RANK.__getitem__, default=None)
    user._hermes_role = role
    return role


def has_role(user, needed: str) -> bool:
    role = role_of(user)
    return role is not None and _RANK[role] >= _RANK[needed]


def require_role(user, needed: str) -> None:
    if not has_role(user, needed):
        raise PermissionDenied(f"This needs the {needed} role.")


def role_required(needed: str, *, on_refusal=None):
    """The view needs ``needed`` (or a higher role); anyone else gets a 403.

    ``on_refusal(request, *args, **kwargs)``, if given, runs before the 403 is
    raised: to answer 404 for what does not exist, or to audit the refusal.
    Works on async views too (the check is one database step off the loop).
    """

    def check(request, args, kwargs) -> None:
        if not has_role(request.user, needed):
            if on_refusal is not None:
                on_refusal(request, *args, **kwargs)
            raise PermissionDenied(f"This needs the {needed} role.")

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


def set_role(user, role: str) -> None:
    if role not in ROLES:
        raise ValueError(f"unknown role {role!r}")
    groups = {name: Group.objects.get_or_create(name=name)[0] for name in ROLES}
    user.groups.remove(*[groups[r] for r in ROLES if r != role])
    user.groups.add(groups[role])
    user._hermes_role = role


class RoleRequiredMiddleware:
    """A logged-in account without any role sees nothing but a 403 page.

    Login is enforced by Django's LoginRequiredMiddleware; this closes the gap
    of an account that exists but was never given a role.
    """

    OPEN_PATHS = ("/accounts/", "/healthz", "/readyz", "/static/")

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
