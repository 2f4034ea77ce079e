"""What deletion asks of features it does not import (retention), as Django signals.

Both are sent with ``send()``: a receiver that fails fails the step.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.dispatch import Signal

# Sent with ``request`` just before an approved request's DELETE; a receiver returns
# why it must not run now (execution then voids it with that reason), or None.
holding = Signal()
# Sent with ``batch`` and ``user`` when a bulk deletion's page is drawn; a receiver
# returns ``(template name, context)`` to include below the reason, or None.
batch_page = Signal()


@dataclass(frozen=True)
class Panel:
    template: str
    context: dict


def hold_reason(request) -> str | None:
    """The first reason a receiver of ``holding`` gives, or None."""
    for _, reason in holding.send(sender=type(request), request=request):
        if reason:
            return reason
    return None


def panels(batch, user) -> list[Panel]:
    """What receivers of ``batch_page`` add to this batch's page."""
    answers = batch_page.send(sender=type(batch), batch=batch, user=user)
    return [Panel(*answer) for _, answer in answers if answer is not None]
