"""Who may do what with a chat turn beyond reading it.

Reading a turn (its page and its stream: the message and the answer) is
role-wide, for every support user: the message and the answer are written
to the session's transcript, which every support user reads anyway, and the
session page shows a running turn to whoever opens it (one turn at a time per
session). What is the sender's own is kept to the sender and admins: the
memory scope (``session_key``) it used, and stopping it. The system message
is never shown to anyone, only its length.
"""

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
