"""Closing many sessions with one reason: each through the same PATCH path as one close.

Every session gets its own ``apply.attempt`` (its own derived submission
key, its own idempotency record and audit event), so a repeat of the bulk
form replays each session's outcome instead of sending anything again.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.audit import idempotency
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.db_steps import release_connections
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import visibility
from hermes_ui.search.selection import member_key

CLOSED, ALREADY, FAILED, UNCERTAIN = "closed", "already closed", "refused", "uncertain"


@dataclass
class Closed:
    session_id: str
    verdict: str
    code: str = ""
    kept_reason: str = ""
    event_id: int | None = None
    replayed: bool = False


def close_each(
    endpoint: Endpoint, user, ids: list[str], end_reason: str, form_key: str, size: int = 0
):
    """Close each session in turn; yields one row per session, in the selection's order.

    ``size`` is the whole selection's (when ``ids`` is what a resumed job has left):
    it is part of each session's submission, so it must not change. The person's
    access is checked again before each one: nothing is sent for a session they
    may no longer act on.
    """
    for session_id in ids:
        if not visibility.still_may_act(user, endpoint.id, session_id):
            yield Closed(session_id, FAILED, code="not_found")  # access gone meanwhile
            continue
        yield _close_one(endpoint, user, session_id, end_reason, form_key, size or len(ids))


def _inputs(end_reason: str, size: int) -> dict:
    return {"op": "close", "end_reason": end_reason, "bulk": size}


def _patch(endpoint: Endpoint, session_id: str, key: str, end_reason: str):
    # The PATCH may take a while: the database connection is not held meanwhile.
    release_connections()
    return client_for(endpoint).patch_session(
        session_id, idempotency_key=key, end_reason=end_reason
    )


def _close_one(endpoint, user, session_id, end_reason, form_key, size) -> Closed:
    applied = apply.attempt(
        apply.PATCH,
        endpoint,
        user,
        form_key=member_key(form_key, session_id),
        inputs=_inputs(end_reason, size),
        session_id=session_id,
        call=lambda key, evidence: _patch(endpoint, session_id, key, end_reason),
    )
    result = applied.result
    row = Closed(
        session_id,
        FAILED,
        code=result.error_code,
        event_id=result.event_id,
        replayed=applied.replayed,
    )
    if result.ok:
        applied_now = applied.evidence.get("applied")
        row.verdict = CLOSED if applied_now else ALREADY
        row.kept_reason = "" if applied_now else str(applied.evidence.get("end_reason_kept") or "")
    elif result.outcome in (Outcome.UNCERTAIN, Outcome.RUNNING):
        row.verdict = UNCERTAIN
    return row


def reconcile_orphans(
    endpoint: Endpoint, user, ids: list[str], end_reason: str, form_key: str, size: int
) -> int:
    """Settle the closes a dead worker left in flight (a resumed job, before it goes on).

    A close whose record still says "running" was sent, or about to be, when
    its worker died; its outcome is unknown. Reading the session settles it:
    closed with the reason asked, it is recorded as done (nothing is sent
    again); still open, the record is dropped and the close is sent now, once;
    unreadable, it stays uncertain. Returns how many were settled.
    """
    settled = 0
    for session_id in ids:
        record = idempotency.orphaned(
            apply.PATCH,
            endpoint.id,
            form_key=member_key(form_key, session_id),
            inputs={**_inputs(end_reason, size), "session_id": session_id},
        )
        if record is None:
            continue
        settled += 1
        evidence = {**_inputs(end_reason, size), "session_id": session_id, "reconciled": True}
        try:
            release_connections()
            session = client_for(endpoint).get_session(session_id)
        except HermesError as error:
            idempotency.settle(
                record,
                user,
                idempotency.Result(Outcome.UNCERTAIN, error_code=error.code, evidence=evidence),
            )
            continue
        if not session.closed:
            idempotency.discard(record, user, evidence)  # it never landed: send it now
            continue
        applied = session.end_reason == end_reason
        evidence["applied"] = applied
        if not applied:
            evidence["end_reason_kept"] = session.end_reason
        idempotency.settle(
            record,
            user,
            idempotency.Result(
                Outcome.SUCCESS,
                http_status=200,
                message=apply.SUCCESS_WORDS[apply.PATCH],
                result={"id": session_id, "end_reason": session.end_reason},
                evidence=evidence,
            ),
        )
    return settled
