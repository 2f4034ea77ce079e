"""Running one change through the replay boundary, and what a view needs to show it."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass

from hermes_ui.audit import idempotency
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import flags
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.session import Session
from hermes_ui.platform.endpoints import Endpoint

CREATE, PATCH, FORK = "session_create", "session_patch", "session_fork"
_CONFLICT = re.compile(r"already in use by session (?P<id>.+)$")
# Fields of a returned row that may be recorded: ids, counts and flags.
_ROW_FIELDS = (
    "id",
    "parent_session_id",
    "source",
    "model",
    "end_reason",
    "message_count",
    "has_system_prompt",
    "has_model_config",
    "title",
    "archived",  # reported by a Hermes newer than 0.19 only
    "pinned",
)


@dataclass
class Applied:
    """The outcome of one submission, fresh or replayed."""

    result: idempotency.Result
    # Only when THIS request called Hermes: the returned session and the error.
    session: Session | None = None
    error: e.HermesError | None = None

    @property
    def replayed(self) -> bool:
        return self.result.replayed

    @property
    def outcome(self) -> str:
        return self.result.outcome

    @property
    def evidence(self) -> dict:
        return self.result.evidence

    @property
    def provider_message(self) -> str:
        return (self.error.provider_message or "") if self.error else ""

    @property
    def conflict_id(self) -> str | None:
        return self.evidence.get("conflict_id")


def submission_key(form_key: str, inputs: dict, session_id: str) -> str:
    """The effective key ``attempt`` records a submission under (``inputs`` as it gets them)."""
    return idempotency.effective_key(form_key, {**inputs, "session_id": session_id})


def attempt(
    capability: str,
    endpoint: Endpoint,
    user,
    *,
    form_key: str,
    inputs: dict,
    session_id: str,
    call: Callable[[str, dict], Session],
) -> Applied:
    """Run ``call(effective_key, evidence) -> session`` at most once for this form submission.

    ``inputs`` are the cleaned form values: they make the effective key (a
    changed form is a new intent) and, redacted, the recorded evidence.
    ``call`` may add ids and counts to ``evidence`` (for example what the
    fork's parent looked like just before).
    """
    live: dict = {}

    def perform(key: str) -> idempotency.Result:
        evidence = {**inputs, "session_id": session_id, "attempted_at": round(time.time(), 3)}
        try:
            session = call(key, evidence)
        except e.HermesError as error:
            live["error"] = error
            return result_for_error(error, evidence)
        live["session"] = session
        evidence.update(_success_evidence(capability, session, evidence))
        row = session.as_row()  # recorded as JSON, in the API's own field names
        return idempotency.Result(
            Outcome.SUCCESS,
            http_status=200 if capability == PATCH else 201,
            message=SUCCESS_WORDS[capability],
            result={name: row.get(name) for name in _ROW_FIELDS if name in row},
            evidence=evidence,
        )

    result = idempotency.run_once(
        capability=capability,
        endpoint_id=endpoint.id,
        form_key=form_key,
        inputs={**inputs, "session_id": session_id},
        user=user,
        perform=perform,
        session_id=session_id,
    )
    return Applied(result, session=live.get("session"), error=live.get("error"))


SUCCESS_WORDS = {
    CREATE: "The session was created.",
    PATCH: "The change was saved.",
    FORK: "The session was forked.",
}


def _success_evidence(capability: str, session: Session, asked: dict) -> dict:
    """Ids and flags of the returned session worth keeping, and whether it is what was asked."""
    if capability == FORK:
        return {"child_id": session.id}
    if capability == CREATE:
        return {
            "session_id": session.id,
            "has_system_prompt": session.has_system_prompt,
            # What Hermes stored, judged now: a later rename is no failed create.
            "title_applied": session.title == (asked.get("title") or None),
        }
    if asked.get("op") in flags.OPS:
        return flags.applied_flag(session, asked)
    if asked.get("op") == "close":
        # The first close reason wins: a 200 that kept an earlier reason is not "applied".
        return {
            "end_reason_kept": session.end_reason,
            "applied": session.end_reason == asked.get("end_reason"),
        }
    return {"applied": session.title == asked.get("title")}


def result_for_error(error: e.HermesError, evidence: dict) -> idempotency.Result:
    """A recorded failure: the code and our own wording, never the provider's text."""
    if isinstance(error, e.InvalidInput) or evidence.get("stage") == "pre_read":
        # Nothing was sent: refused locally, or a read before the change failed.
        outcome = Outcome.REFUSED
    elif error.uncertain:
        outcome = Outcome.UNCERTAIN
    else:
        outcome = Outcome.REJECTED
    extra = {"code": error.code}
    conflict = _CONFLICT.search(error.provider_message or "")
    if error.code == "invalid_title" and conflict:
        # The holder's id is an id, not user text: it lets the page link to it.
        extra["conflict_id"] = conflict.group("id").strip()
    return idempotency.Result(
        outcome,
        http_status=error.status,
        error_code=error.code,
        message=_words_for(error, outcome, evidence),
        evidence={**evidence, **extra},
    )


def _words_for(error: e.HermesError, outcome: str, evidence: dict) -> str:
    if outcome == Outcome.UNCERTAIN:
        return UNCERTAIN_WORDS
    if outcome == Outcome.REFUSED and evidence.get("stage") == "pre_read":
        return "Hermes could not be read before the change, so nothing was sent. " + (
            error.advice or ""
        )
    if outcome == Outcome.REFUSED:
        return "The dashboard refused the input before anything was sent to Hermes."
    return error.advice or "Hermes refused the change."


UNCERTAIN_WORDS = (
    "Hermes did not give a definite answer, so the change may or may not have happened. "
    "Check what happened before doing anything else."
)


def status_for(applied: Applied) -> int:
    """The HTTP status of the response that shows a failed change."""
    result = applied.result
    if result.outcome in {Outcome.UNCERTAIN, Outcome.RUNNING}:
        return 504 if result.error_code == "timeout" else 502
    if result.http_status in {400, 404, 409, 413}:
        return result.http_status
    if result.error_code == "timeout":
        return 504
    local = {"invalid_input", "invalid_session_id", "body_too_large"}
    if result.outcome == Outcome.REFUSED and result.error_code in local:
        return 400
    return 502
