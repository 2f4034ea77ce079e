"""Who may do what with a chat turn beyond reading it."""

from hermes_ui.web.roles import ADMIN, has_role


def owner_or_admin(turn, user) -> bool:
    """The person who sent ``turn`` (a ``Turn`` or its view) or an admin."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return (turn.user_id is not None and turn.user_id == user.pk) or has_role(user, ADMIN)


def may_cancel(turn, user) -> bool:
    return owner_or_admin(turn, user)


def may_see_scope(turn, user) -> bool:
    return owner_or_admin(turn, user)
