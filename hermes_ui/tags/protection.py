"""Tags whose removal from a session is an admin's decision (retention's keep tags).

A keep tag protects its sessions from retention, so taking it off unprotects
them: a reviewer may add it, only an admin removes it, on the session page, in
bulk and through the API. Retention cannot be imported from here (it sits
above tags), so it registers which tags protect from its ``AppConfig.ready()``.
"""

from __future__ import annotations

from collections.abc import Callable

from hermes_ui.web.roles import ADMIN, has_role

_checks: list[Callable] = []


def register(check: Callable) -> None:
    """``check(tag) -> bool``: whether removing ``tag`` from a session takes protection away."""
    if check not in _checks:
        _checks.append(check)


def protects(tag) -> bool:
    return any(check(tag) for check in _checks)


def removal_refusal(user, tag) -> str | None:
    """Why ``user`` may not remove ``tag`` from sessions, or None when they may."""
    if has_role(user, ADMIN) or not protects(tag):
        return None
    return (
        f"This needs the admin role: tag “{tag.name}” protects sessions from retention, "
        "so only an admin removes it."
    )
