"""Audit records of chat turns: ids, states and token counts, never content."""

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome

STREAM, SYNC = "session_chat_stream", "session_chat"


def outcome_of(state: str, rejected: bool) -> str:
    if rejected:
        return Outcome.REJECTED
    # Anything but a completed turn may have run tools: never "rejected".
    return Outcome.SUCCESS if state == "completed" else Outcome.UNCERTAIN


def record_turn(job, ending, view, rejected: bool, status, cancelled_by=None) -> None:
    """The final record of one turn (``job`` is a relay Job or a sync turn's equivalent)."""
    usage = view.usage or {}
    capability = STREAM if view.mode == "stream" else SYNC
    evidence = {
        "turn_id": job.turn_id,
        "state": ending.state,
        "events": view.event_count,
        "resolved_session_id": job.target_session_id,
        "effective_session_id": view.next_session_id,
        "input_tokens": usage.get("input_tokens"),
        "output_tokens": usage.get("output_tokens"),
        "total_tokens": usage.get("total_tokens"),
        "kind": view.mode,
    }
    trail.record(
        job.user,
        capability=capability,
        endpoint=job.endpoint_id,
        outcome=outcome_of(ending.state, rejected),
        session_id=job.target_session_id,
        idempotency_key=job.form_key,
        http_status=status,
        error_code=ending.code,
        evidence=evidence,
    )
    if cancelled_by is not None and getattr(cancelled_by, "pk", None) != getattr(job.user, "pk", 0):
        # Someone else stopped this user's turn: that decision is theirs to own.
        trail.record(
            cancelled_by,
            capability=capability,
            endpoint=job.endpoint_id,
            outcome=Outcome.UNCERTAIN,
            session_id=job.target_session_id,
            idempotency_key=job.form_key,
            error_code="cancelled_by_other",
            evidence={"turn_id": job.turn_id, "state": ending.state},
        )


def record_refusal(user, *, endpoint_id: str, session_id: str, code: str, mode: str) -> None:
    """The dashboard refused to start a turn (closed session, one already running)."""
    trail.record(
        user,
        capability=STREAM if mode == "stream" else SYNC,
        endpoint=endpoint_id,
        outcome=Outcome.REFUSED,
        session_id=session_id,
        error_code=code,
        evidence={"kind": mode},
    )
