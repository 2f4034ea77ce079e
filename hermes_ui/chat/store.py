"""Reading and writing turns in the dashboard's database (synchronous ORM code).

The relay calls these from its writer thread, views call them directly;
nothing here talks to Hermes.
"""

from __future__ import annotations

import uuid

from django.db import transaction
from django.utils import timezone

from hermes_ui.chat import turn_streams
from hermes_ui.chat.models import ACTIVE_STATES, Turn, TurnEvent, TurnState, check_transition
from hermes_ui.chat.progress import Ending, TurnView

# Identifies this process: a pending or streaming turn recorded by another
# process can never be finished by it (the relay lives in process memory).
BOOT_ID = uuid.uuid4().hex
_RESTARTED = (
    "The dashboard restarted while this turn was running, so it stopped listening. "
    "Hermes may have finished the turn: check the transcript."
)
NO_LEASE = (
    "The dashboard could not reach Redis, where its workers record who runs each turn, "
    "so nothing was sent to Hermes. Try again in a moment."
)
NO_LEASE_CODE = "redis_unavailable"
ABANDONED = "The dashboard failed while relaying this turn; check the transcript."


def view_of(turn: Turn, *, with_events: bool = True) -> TurnView:
    """The turn as the templates show it, rebuilt from its stored events."""
    view = TurnView(
        turn_id=turn.pk,
        endpoint_id=turn.endpoint,
        requested_session_id=turn.requested_session_id,
        target_session_id=turn.target_session_id,
        message=turn.message,
        mode=turn.mode,
        state=turn.state,
        system_message=turn.system_message,
        session_key=turn.session_key,
        username=turn.user.get_username() if turn.user_id and turn.user else "",
        user_id=turn.user_id,
        created_at=turn.created_at,
        rejected=turn.rejected,
        error_code=turn.error_code,
        error_message=turn.error_message,
        durability=dict(turn.durability or {}),
    )
    if with_events and turn.mode == Turn.Mode.STREAM:
        for seq, name, data in turn.events.values_list("seq", "name", "data"):
            view.apply(seq, name, data if isinstance(data, dict) else {})
    if turn.mode == Turn.Mode.SYNC and turn.answer:
        view.final_answer = turn.answer
    if turn.effective_session_id:
        view.effective_session_id = turn.effective_session_id
    if view.usage is None and turn.total_tokens is not None:
        view.usage = {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "total_tokens": turn.total_tokens,
        }
    view.keepalives = turn.keepalives
    view.event_count = max(view.event_count, turn.event_count)
    return view


def save_events(rows: list[tuple[int, tuple[int, str, dict, float]]]) -> None:
    """Insert (turn id, (seq, name, data, received_at)) rows, of one turn or several."""
    TurnEvent.objects.bulk_create(
        [
            TurnEvent(turn_id=turn_id, seq=s, name=n, data=without_nul(d), received_at=t)
            for turn_id, (s, n, d, t) in rows
        ]
    )


def set_state(turn_id: int, state: str, **fields) -> None:
    with transaction.atomic():
        turn = Turn.objects.select_for_update().get(pk=turn_id)
        check_transition(turn.state, state)
        turn.state = state
        for name, value in fields.items():
            setattr(turn, name, without_nul(value))
        turn.save()


def without_nul(value):
    """``value`` with NUL characters dropped from every string in it.

    PostgreSQL refuses NUL in text and JSON (SQLite stores it), and a model's
    output may carry one; dropping it on both keeps the turn recordable.
    """
    if isinstance(value, str):
        return value.replace("\x00", "")
    if isinstance(value, dict):
        return {without_nul(k): without_nul(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [without_nul(v) for v in value]
    return value


def finish(turn_id: int, ending: Ending, view: TurnView, *, rejected: bool = False) -> None:
    usage = view.usage or {}
    set_state(
        turn_id,
        ending.state,
        error_code=ending.code[:60],
        error_message=ending.message,
        rejected=rejected,
        answer=view.final_answer if view.final_answer is not None else view.answer,
        run_id=view.run_id[:80],
        effective_session_id=view.effective_session_id[:300],
        input_tokens=_count(usage.get("input_tokens")),
        output_tokens=_count(usage.get("output_tokens")),
        total_tokens=_count(usage.get("total_tokens")),
        event_count=view.event_count,
        keepalives=view.keepalives,
        finished_at=timezone.now(),
    )


def save_durability(turn_id: int, result: dict) -> None:
    Turn.objects.filter(pk=turn_id).update(durability=result)


def settle_if_orphaned(turn: Turn) -> Turn:
    """A running turn of a process that is gone becomes uncertain, never "running" forever.

    Without Redis the relay lives in this process, so another process's turn
    is orphaned; with Redis its owner may be another live worker, and only a
    lapsed lease (see ``turn_streams``) proves it gone.
    """
    if (
        turn.state in ACTIVE_STATES
        and turn.runner != BOOT_ID
        and (not turn_streams.enabled() or turn_streams.lapsed(turn))
    ):
        updated = Turn.objects.filter(pk=turn.pk, state=turn.state, runner=turn.runner).update(
            state=TurnState.UNCERTAIN,
            error_code="dashboard_restarted",
            error_message=_RESTARTED,
            finished_at=timezone.now(),
        )
        if updated:
            turn.refresh_from_db()
    return turn


def settle_interrupted(turn_id: int) -> None:
    """A turn whose background job's worker died before its end: uncertain, never resent."""
    Turn.objects.filter(pk=turn_id, state__in=ACTIVE_STATES).update(
        state=TurnState.UNCERTAIN,
        error_code="dashboard_restarted",
        error_message=_RESTARTED,
        finished_at=timezone.now(),
    )


def claim(turn_id: int) -> None:
    """Take this process's lease on a turn about to be sent (with Redis only).

    A turn nobody holds a lease on would be settled as orphaned by the other
    workers while it runs, so when Redis cannot record the lease the turn is
    not sent: it is stored as failed and ``turn_streams.LeaseError`` raised.
    """
    if not turn_streams.enabled():
        return
    try:
        turn_streams.claim(turn_id, BOOT_ID)
    except turn_streams.LeaseError:
        Turn.objects.filter(pk=turn_id, state__in=ACTIVE_STATES).update(
            state=TurnState.FAILED,
            error_code=NO_LEASE_CODE,
            error_message=NO_LEASE,
            finished_at=timezone.now(),
        )
        raise


def abandon(turn_id: int) -> None:
    """The relay failed itself: whatever happened in Hermes is unknown."""
    Turn.objects.filter(pk=turn_id, state__in=ACTIVE_STATES).update(
        state=TurnState.UNCERTAIN,
        error_code="dashboard_error",
        error_message=ABANDONED,
        finished_at=timezone.now(),
    )


def _count(value) -> int | None:
    return value if isinstance(value, int) and value >= 0 else None
