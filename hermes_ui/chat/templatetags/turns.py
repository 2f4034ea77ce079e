"""Template helpers for chat turns."""

from django import template

from hermes_ui.chat import access
from hermes_ui.chat.models import state_label as label_of

register = template.Library()


@register.filter
def state_label(turn) -> str:
    """A turn's state in words, from the one table in ``chat.models``."""
    return label_of(turn.state, rejected=turn.rejected)


@register.filter
def shows_scope_to(turn, user) -> bool:
    """The memory scope names whose long-term memory a turn used: its owner's and admins' only."""
    return access.may_see_scope(turn, user)


@register.filter
def cancellable_by(turn, user) -> bool:
    """Whether to offer ``user`` the Cancel button (the view checks again)."""
    return access.may_cancel(turn, user)
