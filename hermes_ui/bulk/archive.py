"""Archiving many sessions: each through the same PATCH path as the session page's button.

Every session gets its own ``apply.attempt`` (its own derived key, idempotency
record and audit event), as bulk close does, so a repeat of the form replays
each outcome. The first ``unsupported_session_field`` (Hermes 0.15-0.19) is
remembered for the endpoint (``changes.flags``) and stops the run: the rest
would be refused the same way, so they are not sent.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.audit import idempotency
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply, flags
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.db_steps import release_connections
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import visibility
from hermes_ui.search.selection import member_key

ARCHIVED, FAILED, UNCERTAIN, NOT_SENT = "archived", "refused", "uncertain", "not sent"


@dataclass
class Archived:
    session_id: str
    verdict: str
    code: str = ""
    event_id: int | None = None
    replayed: bool = False


def _inputs(size: int) -> dict:
    return {"op": "archive", "archived": True, "bulk": size}


def _patch(endpoint: Endpoint, session_id: str, key: str):
    release_connections()  # the PATCH may take a while: no connection held meanwhile
    return client_for(endpoint).patch_session(session_id, idempotency_key=key, archived=True)


def archive_each(endpoint: Endpoint, user, ids: list[str], form_key: str, size: int = 0):
    """Archive each session in turn; yields one row per session, in the selection's order.
    The person's access is checked again before each one (it may be gone meanwhile)."""
    for session_id in ids:
        if not visibility.still_may_act(user, endpoint.id, session_id):
            yield Archived(session_id, NOT_SENT, code="not_found")
            continue
        if flags.refused_here(endpoint):
            yield Archived(session_id, NOT_SENT, code=flags.UNSUPPORTED)
            continue
        applied = apply.attempt(
            apply.PATCH,
            endpoint,
            user,
            form_key=member_key(form_key, session_id),
            inputs=_inputs(size or len(ids)),
            session_id=session_id,
            call=lambda key, evidence, sid=session_id: _patch(endpoint, sid, key),  # type: ignore[misc]
        )
        flags.learn(endpoint, applied, session_id)
        result = applied.result
        row = Archived(session_id, FAILED, result.error_code, result.event_id, applied.replayed)
        if result.ok:
            row.verdict = ARCHIVED if applied.evidence.get("applied") else FAILED
        elif result.outcome in (Outcome.UNCERTAIN, Outcome.RUNNING):
            row.verdict = UNCERTAIN
        yield row


def reconcile_orphans(endpoint: Endpoint, user, ids: list[str], form_key: str, size: int) -> int:
    """Settle the archives a dead worker left in flight, by reading each session.

    Archived as reported: recorded as done; reported not archived: the record is
    dropped and the PATCH is sent now, once; unreadable or not reported: uncertain.
    """
    settled = 0
    for session_id in ids:
        inputs = _inputs(size)
        record = idempotency.orphaned(
            apply.PATCH,
            endpoint.id,
            form_key=member_key(form_key, session_id),
            inputs={**inputs, "session_id": session_id},
        )
        if record is None:
            continue
        settled += 1
        evidence = {**inputs, "session_id": session_id, "reconciled": True}
        try:
            release_connections()
            session = client_for(endpoint).get_session(session_id)
        except HermesError as error:
            result = idempotency.Result(Outcome.UNCERTAIN, error_code=error.code, evidence=evidence)
            idempotency.settle(record, user, result)
            continue
        if session.archived is False:
            idempotency.discard(record, user, evidence)  # it never landed: send it now
            continue
        if session.archived is None:
            idempotency.settle(
                record, user, idempotency.Result(Outcome.UNCERTAIN, evidence=evidence)
            )
            continue
        evidence["applied"] = True
        done = idempotency.Result(
            Outcome.SUCCESS,
            http_status=200,
            message=apply.SUCCESS_WORDS[apply.PATCH],
            result={"id": session_id, "archived": True},
            evidence=evidence,
        )
        idempotency.settle(record, user, done)
    return settled
