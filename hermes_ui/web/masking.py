"""Who takes text away unmasked: one rule for session exports, review datasets and the API.

Masking is on unless switched off explicitly, and support staff always get
the masked text, whatever the request says.
"""

from hermes_ui.web.roles import SUPPORT, role_of


def masked(user, asked: bool) -> bool:
    """Whether ``user``'s copy is masked when they ``asked`` for masking (or did not)."""
    return bool(asked) or role_of(user) == SUPPORT
