"""Run a mutation at most once per form submission.

Every mutation form carries a key minted when it was rendered. The first
submission of (capability, endpoint, key, inputs) claims a row and calls
Hermes; any repeat (double click, refresh, back-and-resubmit, a second tab)
gets the recorded outcome without calling Hermes again, and a concurrent
repeat waits for the first to finish. A form whose inputs changed maps to a
different effective key, so it is a new intent, never a replay.
"""

import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta

from django.db import IntegrityError, transaction
from django.utils import timezone

from hermes_ui.audit import redact, trail
from hermes_ui.audit.models import IdempotencyRecord, Outcome
from hermes_ui.platform.digests import json_digest

RETENTION = timedelta(hours=24)
_KEY_RE = re.compile(r"^[A-Za-z0-9_-]{16,64}$")


class BadKey(ValueError):
    """The form's key is missing or malformed (a forged or truncated form)."""


@dataclass
class Result:
    outcome: str
    http_status: int | None = None
    error_code: str = ""
    message: str = ""
    result: dict = field(default_factory=dict)
    evidence: dict = field(default_factory=dict)
    replayed: bool = False
    key: str = ""
    # The audit event written for THIS submission (a replay gets its own
    # event, carrying the first one's evidence), so a view can link to it.
    event_id: int | None = None

    @property
    def ok(self) -> bool:
        return self.outcome == Outcome.SUCCESS

    @property
    def uncertain(self) -> bool:
        return self.outcome == Outcome.UNCERTAIN

    @property
    def running(self) -> bool:
        return self.outcome == Outcome.RUNNING


def mint_key() -> str:
    return secrets.token_urlsafe(18)


def valid_key(form_key) -> bool:
    """Whether a submitted form key could have come from ``mint_key``."""
    return isinstance(form_key, str) and bool(_KEY_RE.match(form_key))


def effective_key(form_key: str, inputs: dict) -> str:
    if not valid_key(form_key):
        raise BadKey("This form is missing its submission key; reload the page and try again.")
    return f"{form_key}.{json_digest(inputs, 16)}"


def used_for_another(
    capability: str, endpoint_id: str, form_key: str, user, session_id: str
) -> bool:
    """Whether this person already used ``form_key`` for a session other than ``session_id``.

    A key names one intended change: answering another session's request with its
    outcome (or filing it as new) would hide that the caller reused it by mistake.
    """
    if not session_id or not getattr(user, "is_authenticated", False):
        return False
    used = IdempotencyRecord.objects.filter(
        capability=capability, endpoint=endpoint_id, user=user, key__startswith=f"{form_key}."
    ).values_list("session_id", flat=True)
    return any(other and other != session_id for other in used)


def run_once(
    *,
    capability: str,
    endpoint_id: str,
    form_key: str,
    inputs: dict,
    user,
    perform: Callable[[str], Result],
    session_id: str = "",
    wait_seconds: float = 35.0,
) -> Result:
    """Call ``perform(effective_key)`` once for this submission; replay it otherwise."""
    key = effective_key(form_key, inputs)
    _purge_expired()
    try:
        with transaction.atomic():
            record = IdempotencyRecord.objects.create(
                capability=capability,
                endpoint=endpoint_id,
                key=key,
                user=user if getattr(user, "is_authenticated", False) else None,
                session_id=session_id[:300],
            )
    except IntegrityError:
        replay = _wait_for(capability, endpoint_id, key, wait_seconds)
        replay.event_id = trail.record(
            user,
            capability=capability,
            endpoint=endpoint_id,
            outcome=replay.outcome,
            session_id=session_id,
            idempotency_key=key,
            http_status=replay.http_status,
            error_code=replay.error_code,
            evidence={**replay.evidence, "replayed": True},
        ).pk
        return replay
    try:
        result = perform(key)
    except BaseException:
        # A bug after the request may have left Hermes changed: never "rejected".
        _finish(record, Result(Outcome.UNCERTAIN, message="The dashboard failed mid-request."))
        trail.record(
            user,
            capability=capability,
            endpoint=endpoint_id,
            outcome=Outcome.UNCERTAIN,
            session_id=session_id,
            idempotency_key=key,
            error_code="dashboard_error",
        )
        raise
    result.key = key
    # A create without an id learns its session id only from the answer.
    session_id = str((result.evidence or {}).get("session_id") or session_id)
    record.session_id = session_id[:300]
    _finish_recorded(record, user, result, session_id)
    return result


def _finish(record: IdempotencyRecord, result: Result) -> None:
    # The caller sees what a replay would see: the redacted evidence, never raw text.
    result.result = redact.evidence(result.result)
    result.evidence = redact.evidence(result.evidence)
    record.outcome = result.outcome
    record.http_status = result.http_status
    record.error_code = result.error_code[:60]
    record.message = result.message
    record.result = {
        "result": redact.evidence(result.result),
        "evidence": redact.evidence(result.evidence),
    }
    record.finished_at = timezone.now()
    record.save()


def _as_result(record: IdempotencyRecord) -> Result:
    stored = record.result or {}
    return Result(
        outcome=record.outcome,
        http_status=record.http_status,
        error_code=record.error_code,
        message=record.message,
        result=stored.get("result", {}),
        evidence=stored.get("evidence", {}),
        replayed=True,
        key=record.key,
    )


def _wait_for(capability: str, endpoint_id: str, key: str, wait_seconds: float) -> Result:
    deadline = time.monotonic() + wait_seconds
    while True:
        record = IdempotencyRecord.objects.get(capability=capability, endpoint=endpoint_id, key=key)
        if record.outcome != Outcome.RUNNING or time.monotonic() > deadline:
            result = _as_result(record)
            if result.running:
                result.message = (
                    "This submission is still being processed. Check what happened "
                    "before doing anything again."
                )
            return result
        time.sleep(0.05)


def _purge_expired() -> None:
    IdempotencyRecord.objects.filter(created_at__lt=timezone.now() - RETENTION).delete()


# -- a submission whose process died mid-call (a resumed background job) --------------


def orphaned(capability: str, endpoint_id: str, *, form_key: str, inputs: dict):
    """The record of this submission if it still says "running" (its caller is gone)."""
    key = effective_key(form_key, inputs)
    return IdempotencyRecord.objects.filter(
        capability=capability, endpoint=endpoint_id, key=key, outcome=Outcome.RUNNING
    ).first()


def _finish_recorded(record: IdempotencyRecord, user, result: Result, session_id: str) -> None:
    """Store the outcome and its audit event together: a process killed between the two
    would leave an outcome that replays with no event of the call that made it."""
    with transaction.atomic():
        _finish(record, result)
        result.event_id = trail.record(
            user,
            capability=record.capability,
            endpoint=record.endpoint,
            outcome=result.outcome,
            session_id=session_id,
            idempotency_key=record.key,
            http_status=result.http_status,
            error_code=result.error_code,
            evidence=result.evidence,
        ).pk


def settle(record: IdempotencyRecord, user, result: Result) -> Result:
    """Record what reading Hermes established about an orphaned call, with its audit event.

    Only a record still "running" changes: two settlements of one call record one outcome.
    """
    fresh = IdempotencyRecord.objects.filter(pk=record.pk, outcome=Outcome.RUNNING).first()
    if fresh is None:
        return _as_result(IdempotencyRecord.objects.get(pk=record.pk))
    result.key = fresh.key
    _finish_recorded(fresh, user, result, fresh.session_id)
    return result


def discard(record: IdempotencyRecord, user, evidence: dict) -> None:
    """Forget an orphaned call that reading Hermes showed never landed, so it can be sent.

    The audit trail keeps a trace (outcome refused: the dashboard did not apply it).
    """
    deleted, _ = IdempotencyRecord.objects.filter(pk=record.pk, outcome=Outcome.RUNNING).delete()
    if deleted:
        trail.record(
            user,
            capability=record.capability,
            endpoint=record.endpoint,
            outcome=Outcome.REFUSED,
            session_id=record.session_id,
            idempotency_key=record.key,
            error_code="not_applied",
            evidence={**evidence, "applied": False},
        )
