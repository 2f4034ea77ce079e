"""Template helpers for chat turns."""

from django import template

from hermes_ui.chat.models import state_label as label_of
from hermes_ui.web.roles import ADMIN, has_role

register = template.Library()


@register.filter
def state_label(turn) -> str:
    """A turn's state in words, from the one table in ``chat.models``."""
    return label_of(turn.state, rejected=turn.rejected)


@register.filter
def shows_scope_to(turn, user) -> bool:
    """The memory scope names whose long-term memory a turn used: its owner's and admins' only."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return (turn.user_id is not None and turn.user_id == user.pk) or has_role(user, ADMIN)
