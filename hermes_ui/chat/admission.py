"""Whether a turn may start, and the turn record that makes it happen at most once.

Order matters: a submission whose form key already made a turn gets that
turn back (a double click, a reload or a resubmit never sends again); then
the session is resolved to its compression tip (posting to a root writes
rows ``session_messages`` never shows) and a closed tip is refused; then the
turn row is inserted, and the database's "one running turn per session"
constraint decides races between tabs.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, transaction

from hermes_ui.chat import durability, store
from hermes_ui.chat.models import ACTIVE_STATES, Turn
from hermes_ui.hermes import HermesError, client_for

_CLOSED = (
    "This session is closed (end reason “{reason}”), so the dashboard does not continue it. "
    "Hermes itself would accept the turn (closure is only metadata), but whoever closed the "
    "session meant it to end. An operator can allow it with HERMES_ALLOW_CHAT_ON_CLOSED=true."
)
_BRANCHED = " It was forked: continue in one of its branches instead."
_BUSY = (
    "A turn is already running on this session (shown below). Hermes does not serialize "
    "turns on one session, so the dashboard sends one at a time: wait for it or cancel it."
)


@dataclass
class Admission:
    turn: Turn | None = None
    replayed: bool = False  # the form key already made this turn
    refusal: str = ""  # "session_closed" or "turn_running"
    message: str = ""
    error: HermesError | None = None
    baseline: int | None = None


def admit(endpoint, session_id: str, form, user, mode: str) -> Admission:
    key = form.submission_key(session_id)
    existing = _by_key(endpoint.id, key)
    if existing is not None:
        return Admission(turn=existing, replayed=True)
    client = client_for(endpoint)
    try:
        messages = client.get_messages(session_id)
        row = client.get_session(session_id)
        target = session_id
        if compressed(row) and messages["session_id"] != session_id:
            # Only a compression chain moves the turn: session_messages also
            # resolves a parent into its newest API fork (forks carry no branch
            # marker), and a turn must never silently land on a fork.
            target = messages["session_id"]
            row = client.get_session(target)
    except HermesError as error:
        return Admission(error=error)
    reason = row.get("end_reason")
    if reason and not settings.HERMES_ALLOW_CHAT_ON_CLOSED:
        return Admission(refusal="session_closed", message=closed_text(reason))
    fields = {
        "endpoint": endpoint.id,
        "requested_session_id": session_id[:300],
        "target_session_id": target[:300],
        "user": user if getattr(user, "is_authenticated", False) else None,
        "form_key": key,
        "mode": mode,
        "runner": store.BOOT_ID,
        "message": form.content(),
        "system_message": form.cleaned_data.get("system_message") or "",
        "session_key": form.cleaned_data.get("session_key") or "",
        "baseline_message_id": durability.baseline(messages["data"]),
    }
    for _attempt in range(2):
        try:
            with transaction.atomic():
                return Admission(
                    turn=Turn.objects.create(**fields), baseline=fields["baseline_message_id"]
                )
        except IntegrityError:
            existing = _by_key(endpoint.id, key)
            if existing is not None:  # the same submission, concurrently
                return Admission(turn=existing, replayed=True)
            running = running_turn(endpoint.id, target)
            if running is not None:
                return Admission(turn=running, refusal="turn_running", message=_BUSY)
    return Admission(refusal="turn_running", message=_BUSY)


def compressed(row: dict | None) -> bool:
    return (row or {}).get("end_reason") == "compression"


def closed_text(reason: str) -> str:
    return _CLOSED.format(reason=reason) + (_BRANCHED if reason == "branched" else "")


def running_turn(endpoint_id: str, target: str) -> Turn | None:
    """The turn running on that session, after settling one a dead process left behind."""
    turn = Turn.objects.filter(
        endpoint=endpoint_id, target_session_id=target, state__in=ACTIVE_STATES
    ).first()
    if turn is None:
        return None
    turn = store.settle_if_orphaned(turn)
    return turn if turn.active else None


def _by_key(endpoint_id: str, key: str) -> Turn | None:
    turn = Turn.objects.filter(endpoint=endpoint_id, form_key=key).first()
    return store.settle_if_orphaned(turn) if turn is not None else None
