"""Closing many sessions with one reason: each through the same PATCH path as one close.

Every session gets its own ``apply.attempt`` (its own derived submission
key, its own idempotency record and audit event), so a repeat of the bulk
form replays each session's outcome instead of sending anything again.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply
from hermes_ui.db_steps import release_connections
from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes import client_for
from hermes_ui.index.selection import member_key

CLOSED, ALREADY, FAILED, UNCERTAIN = "closed", "already closed", "refused", "uncertain"


@dataclass
class Closed:
    session_id: str
    verdict: str
    code: str = ""
    kept_reason: str = ""
    event_id: int | None = None
    replayed: bool = False


def close_each(endpoint: Endpoint, user, ids: list[str], end_reason: str, form_key: str):
    """Close each session in turn; yields one row per session, in the selection's order."""
    for session_id in ids:
        yield _close_one(endpoint, user, session_id, end_reason, form_key, len(ids))


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
        inputs={"op": "close", "end_reason": end_reason, "bulk": size},
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
