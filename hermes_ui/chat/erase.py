"""What chat keeps about a session, erased when Hermes deleted it (``platform.erasers``).

A turn is a copy of the session it was posted on, sent to, or rotated into:
its message, system message and answer, and its events (tool arguments).
With ``REDIS_URL`` its relayed stream is a copy too.
"""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.chat import turn_streams
from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.platform import erasers


def _turns(scope, ids: list[str]):
    about = (
        Q(requested_session_id__in=ids)
        | Q(target_session_id__in=ids)
        | Q(effective_session_id__in=ids)
    )
    return Turn.objects.filter(erasers.mine(scope) & about)


def held(scope, ids: list[str]) -> dict[str, int]:
    turns = _turns(scope, ids)
    return {
        "turns": turns.count(),
        "turn_events": TurnEvent.objects.filter(turn__in=turns).count(),
    }


def erase(scope, ids: list[str]) -> dict[str, int]:
    turn_ids = list(_turns(scope, ids).values_list("pk", flat=True))
    _, deleted = _turns(scope, ids).delete()  # cascades to TurnEvent
    erasers.after_commit(lambda: {"relay_streams": turn_streams.forget(turn_ids)})
    return {
        "turns": deleted.get(Turn._meta.label, 0),
        "turn_events": deleted.get(TurnEvent._meta.label, 0),
    }
