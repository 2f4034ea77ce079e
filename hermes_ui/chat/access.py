"""Who may do what with a chat turn: read it (the one rule), and beyond reading it."""

from hermes_ui.access import rows as seen
from hermes_ui.access.models import ADMIN


def may_read(turn, user) -> bool:
    """Whoever may see the session the turn went to (its target, on its endpoint)."""
    return seen.may_see(user, turn.endpoint, turn.target_session_id)


def owner_or_admin(turn, user) -> bool:
    """The person who sent ``turn`` (a ``Turn`` or its view) or an admin of its session."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    if turn.user_id is not None and turn.user_id == user.pk:
        return True
    endpoint = str(getattr(turn, "endpoint_id", None) or getattr(turn, "endpoint", ""))
    return seen.may_see(user, endpoint, turn.target_session_id or "", ADMIN)


def may_cancel(turn, user) -> bool:
    return owner_or_admin(turn, user)


def may_see_scope(turn, user) -> bool:
    return owner_or_admin(turn, user)
