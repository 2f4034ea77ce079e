"""Whether a turn may start, and the turn record that makes it happen at most once."""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings
from django.db import IntegrityError, connection, transaction

from hermes_ui.chat import durability, store
from hermes_ui.chat.models import ACTIVE_STATES, Turn
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.endpoints import Endpoint

_CLOSED = (
    "This session is closed (end reason “{reason}”), so the dashboard does not continue it. "
    "Hermes itself would accept the turn (closure is only metadata), but whoever closed the "
    "session meant it to end. An operator can allow it with HERMES_ALLOW_CHAT_ON_CLOSED=true."
)
_BRANCHED = " It was forked: continue in one of its branches instead."
# Compression is not a decision to end the conversation: no operator setting applies.
_COMPRESSED = (
    "This session was compressed: its conversation continues in a continuation session "
    "(the lineage panel names the live tip). Open the tip and chat there."
)
_BUSY = (
    "A turn is already running on this session (shown below). Hermes does not serialize "
    "turns on one session, so the dashboard sends one at a time: wait for it or cancel it."
)
_USER_CAP = (
    "You already have {limit} chat turns running, the most one person may run at once. "
    "Nothing was sent: wait for one to finish or cancel it, then send again."
)
_OVERALL_CAP = (
    "The dashboard is already running {limit} chat turns, the most it runs at once. "
    "Nothing was sent: try again in a minute."
)
# Refusals that are about load, not about this session (answered 429, not 409).
CAP_REFUSALS = ("user_turn_limit", "turn_limit")


@dataclass
class Admission:
    turn: Turn | None = None
    replayed: bool = False  # the form key already made this turn
    refusal: str = ""  # "session_closed", "turn_running" or one of CAP_REFUSALS
    message: str = ""
    error: HermesError | None = None
    baseline: int | None = None


def admit(endpoint, session_id: str, form, user, mode: str) -> Admission:
    key = form.submission_key(session_id)
    existing = _by_key(endpoint, key)
    if existing is not None:
        return Admission(turn=existing, replayed=True)
    capped = over_cap(user)
    if capped is not None:
        return capped
    client = client_for(endpoint)
    try:
        # The resolved id and the newest message id: the last message says both.
        messages, _ = client.latest_messages(session_id, 1)
        row = client.get_session(session_id)
        target = session_id
        if row.compressed and messages["session_id"] != session_id:
            # Only a compression chain moves the turn: session_messages also
            # resolves a parent into its newest API fork (forks carry no branch
            # marker), and a turn must never silently land on a fork.
            target = messages["session_id"]
            row = client.get_session(target)
    except HermesError as error:
        return Admission(error=error)
    if row.closed and not settings.HERMES_ALLOW_CHAT_ON_CLOSED:
        return Admission(refusal="session_closed", message=closed_text(row.end_reason))
    fields = {
        **endpoint.scope(),
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
                _serialize_admissions(user)
                capped = over_cap(user)
                if capped is not None:
                    return capped
                return Admission(
                    turn=Turn.objects.create(**fields), baseline=fields["baseline_message_id"]
                )
        except IntegrityError:
            existing = _by_key(endpoint, key)
            if existing is not None:  # the same submission, concurrently
                return Admission(turn=existing, replayed=True)
            running = running_turn(endpoint, target)
            if running is not None:
                return Admission(turn=running, refusal="turn_running", message=_BUSY)
    return Admission(refusal="turn_running", message=_BUSY)


# Advisory lock keys (PostgreSQL's two-integer form: class, object). The class
# numbers are this module's own; no other code of the dashboard takes advisory locks.
_USER_LOCK_CLASS = 0x4855_0001  # object: the user's id
_ALL_LOCK_CLASS = 0x4855_0002  # object: 0, one lock for the dashboard-wide cap


def _serialize_admissions(user) -> None:
    """Make this transaction's count and insert exclusive (see the module's docstring)."""
    if connection.vendor != "postgresql":
        return
    keys = []
    if getattr(user, "is_authenticated", False):
        keys.append((_USER_LOCK_CLASS, user.pk & 0x7FFF_FFFF))
    keys.append((_ALL_LOCK_CLASS, 0))
    with connection.cursor() as cursor:
        for key in keys:  # always the person's first, then the global one
            cursor.execute("SELECT pg_advisory_xact_lock(%s::integer, %s::integer)", key)


def over_cap(user) -> Admission | None:
    """A refusal when this person, or the dashboard as a whole, runs the most turns allowed."""
    if _running(Turn.objects.all()) >= settings.HERMES_CHAT_MAX_TURNS:
        limit = settings.HERMES_CHAT_MAX_TURNS
        return Admission(refusal="turn_limit", message=_OVERALL_CAP.format(limit=limit))
    if getattr(user, "is_authenticated", False):
        limit = settings.HERMES_CHAT_MAX_TURNS_PER_USER
        if _running(Turn.objects.filter(user=user)) >= limit:
            return Admission(refusal="user_turn_limit", message=_USER_CAP.format(limit=limit))
    return None


def _running(turns) -> int:
    """Running turns among ``turns``, after settling those a dead process left behind."""
    active = turns.filter(state__in=ACTIVE_STATES)
    return sum(1 for turn in active if store.settle_if_orphaned(turn).active)


def closed_text(reason: str | None) -> str:
    if reason == "compression":
        return _COMPRESSED
    text = _CLOSED.format(reason=reason or "no reason")
    return text + (_BRANCHED if reason == "branched" else "")


def running_turn(endpoint: Endpoint, target: str) -> Turn | None:
    """The turn running on that session, after settling one a dead process left behind."""
    turn = Turn.objects.filter(
        **endpoint.scope(), target_session_id=target, state__in=ACTIVE_STATES
    ).first()
    if turn is None:
        return None
    turn = store.settle_if_orphaned(turn)
    return turn if turn.active else None


def _by_key(endpoint: Endpoint, key: str) -> Turn | None:
    turn = Turn.objects.filter(**endpoint.scope(), form_key=key).first()
    return store.settle_if_orphaned(turn) if turn is not None else None
