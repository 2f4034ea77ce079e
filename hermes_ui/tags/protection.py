"""Tags whose removal from a session is an admin's decision (retention's keep tags).

A keep tag protects its sessions from retention, so taking it off unprotects
them: a reviewer may add it, only an admin removes it, on the session page, in
bulk and through the API. Retention sits above tags, so this asks through the
keep tag's reverse relation (``Tag.keep``) instead of importing it.
"""

from __future__ import annotations

from hermes_ui.tags.models import Tag
from hermes_ui.web.roles import ADMIN, has_role


def protects(tag) -> bool:
    """Whether removing ``tag`` from a session takes a retention protection away."""
    return Tag.objects.filter(pk=tag.pk, keep__isnull=False).exists()


def removal_refusal(user, tag, endpoint: str | None = None) -> str | None:
    """Why ``user`` may not remove ``tag`` from sessions (of ``endpoint``), or None when
    they may: the admin role on that endpoint (without one: on some endpoint)."""
    if has_role(user, ADMIN, endpoint) or not protects(tag):
        return None
    return (
        f"This needs the admin role: tag “{tag.name}” protects sessions from retention, "
        "so only an admin removes it."
    )
