"""Executing an approved deletion: the only code in the dashboard that calls DELETE."""

from __future__ import annotations

import functools
import logging

from hermes_ui.audit import idempotency
from hermes_ui.audit.idempotency import Result, mint_key
from hermes_ui.audit.models import Outcome
from hermes_ui.deletion import (
    announce,
    approval,
    clock,
    confirm_gone,
    erasure,
    events,
    leftovers,
    policy,
    signals,
)
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.deletion.request import current_consequences
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes import errors as e

log = logging.getLogger(__name__)

CAPABILITY = "session_delete"
ERASE_CAPABILITY = "session_erase"  # an erase-only case: no DELETE is sent


def _capability(request: DeletionRequest) -> str:
    return ERASE_CAPABILITY if request.erase_only else CAPABILITY


def execute(request: DeletionRequest, user) -> Result:
    """Run (or replay) the DELETE. Raises ``policy.Refusal`` or ``HermesError``."""
    refusal = policy.execution_refusal(request, user)
    if refusal is not None:
        events.refused(user, request, _capability(request), refusal.code)
        raise refusal
    if request.status in (Status.EXECUTED, Status.UNCERTAIN):
        return _run(request, user, lambda key: _recorded(request))
    held = signals.hold_reason(request)
    if held:
        raise approval.void(request, user, "held", held)
    approval.still_matches(request, user)
    endpoint = policy.endpoint_of(request)
    client = client_for(endpoint)
    if request.erase_only:
        perform = functools.partial(_confirm_lost, client, request)
    else:
        survivors = _same_lineage(request, user, endpoint)
        perform = functools.partial(_delete, client, request, survivors=survivors)
    key_before = request.idempotency_key
    try:
        result = _run(request, user, perform)
    except Exception:
        # run_once recorded "uncertain" for this key; the request must say so too.
        request.status, request.attempts = Status.UNCERTAIN, request.attempts + 1
        request.status_note = "The dashboard failed during the DELETE. Check what happened."
        request.save()
        raise
    request.refresh_from_db()
    # Our own DELETE's outcome is the truth, even over a withdrawal made while
    # it ran. A replay (a concurrent repeat that waited on the first
    # submission) applies it only if the first has not written it here yet.
    if not result.replayed or (
        request.status == Status.APPROVED and request.idempotency_key == key_before
    ):
        _apply(request, user, result)
    return result


def _same_lineage(request: DeletionRequest, user, endpoint) -> list[dict]:
    """Void the approval if the delegates changed; the children to confirm as survivors."""
    fresh = current_consequences(endpoint, request.session_id, request.snapshot["row"])
    # A delegate that is a member of the same bulk request has a DELETE of its own
    # (a follow-up on an endpoint that does not cascade): it may already be gone.
    others = leftovers.siblings(request)
    cascade = [item["id"] for item in fresh["cascade"] if item["id"] not in others]
    expected = [sid for sid in request.cascade_ids if sid not in others]
    if sorted(cascade) != sorted(expected):
        raise approval.void(
            request,
            user,
            "lineage_changed",
            f"The lineage changed after the request: {len(cascade)} delegate session(s) "
            f"would now be deleted with it instead of {len(expected)}. The approval "
            "is void and nothing was deleted. Request the deletion again.",
        )
    # Children added since the request survive too; confirm them along with the rest.
    known = set(request.survivor_ids)
    return request.consequences.get("survivors", []) + [
        item for item in fresh["survivors"] if item["id"] not in known
    ]


def _run(request: DeletionRequest, user, perform) -> Result:
    return idempotency.run_once(
        capability=_capability(request),
        endpoint_id=request.endpoint,
        form_key=request.idempotency_key,
        inputs={"request_id": request.pk, "session_id": request.session_id},
        user=user,
        perform=perform,
        session_id=request.session_id,
    )


def _recorded(request: DeletionRequest) -> Result:
    """Only reached when the idempotency record was purged (after 24 hours): the
    request row still holds the outcome, and a finished deletion is never re-sent."""
    outcome = Outcome.SUCCESS if request.status == Status.EXECUTED else Outcome.UNCERTAIN
    return Result(
        outcome,
        result=request.result,
        evidence={"request_id": request.pk},
        message="Recorded outcome of this deletion.",
        replayed=True,
    )


def _delete(client, request: DeletionRequest, key: str, survivors: list[dict]) -> Result:
    evidence = {"request_id": request.pk, "cascade": request.cascade_ids}
    try:
        client.delete_session(request.session_id, idempotency_key=key)
    except HermesError as error:
        outcome = Outcome.UNCERTAIN if error.uncertain else Outcome.REJECTED
        if error.uncertain:
            message = (
                f"The DELETE ended without an answer ({error.code}): the session may or may "
                "not be deleted. Check what happened before doing anything else."
            )
        elif error.code == "session_active_turn":  # newer Hermes: 409 while a turn writes
            message = (
                "A turn was running in this session when the DELETE arrived, so Hermes "
                "refused it (session_active_turn). Nothing was deleted. Wait for the turn "
                "to end."
            )
        else:
            message = f"Hermes refused the DELETE ({error.code}). Nothing was deleted."
        return Result(
            outcome,
            http_status=error.status,
            error_code=error.code,
            message=message,
            evidence=evidence,
        )
    cascade = request.consequences.get("cascade", [])
    result = confirm_gone.after_delete(client, request.session_id, cascade, survivors)
    return Result(
        Outcome.SUCCESS,
        http_status=200,
        result=result,
        message="Deleted and confirmed gone by reading Hermes.",
        evidence={
            **evidence,
            "deleted": [d["id"] for d in result["deleted"]],
            "survivors": [s["id"] for s in result["survivors"]],
        },
    )


def _confirm_lost(client, request: DeletionRequest, key: str) -> Result:
    """An erase-only case: read every id again; only what Hermes lost is erased."""
    result = confirm_gone.after_delete(
        client, request.session_id, request.consequences.get("cascade", []), []
    )
    return Result(
        Outcome.SUCCESS,
        result=result,
        message="Hermes had already deleted it: nothing was sent to Hermes.",
        evidence={
            "request_id": request.pk,
            "cascade": request.cascade_ids,
            "deleted": [d["id"] for d in result["deleted"]],
        },
    )


def _erase(request: DeletionRequest, earlier: dict | None = None) -> dict:
    """Erase the local copies of every id confirmed gone; counts per kind.

    ``earlier`` counts (a concurrent repeat that applied the outcome first)
    are added, since the second erasure of the same ids finds nothing.
    """
    result = request.result
    gone = [d["id"] for d in result.get("deleted", []) if d.get("state") == confirm_gone.GONE]
    # A child expected to survive that reads as missing is gone from Hermes too.
    gone += [s["id"] for s in result.get("survivors", []) if s.get("state") == confirm_gone.MISSING]
    # Transcripts cached under a neighbour's id can show a deleted one (a
    # compression root resolves to its tip); only their cache entries go.
    row = request.snapshot.get("row", {})
    related = [
        *request.survivor_ids,
        row.get("parent_session_id") or "",
        request.snapshot.get("resolved_session_id") or "",
    ]
    try:
        counts = erasure.erase(policy.endpoint_of(request), gone, related=[r for r in related if r])
    except Exception as exc:  # Hermes already deleted: the case must still record it
        # The type only: an exception message could quote what was being erased.
        log.warning("erasure after deletion case=%s failed: %s", request.pk, type(exc).__name__)
        return {**(earlier or {}), "incomplete": 1}
    return {kind: n + (earlier or {}).get(kind, 0) for kind, n in counts.items()}


def _apply(request: DeletionRequest, user, result: Result) -> None:
    request.attempts += 1
    request.executor, request.executor_name = user, user.get_username()
    request.executed_at = clock.now()
    if result.ok:
        earlier = request.result.get("erased") if request.status == Status.EXECUTED else None
        request.status, request.result = Status.EXECUTED, result.result
        request.result["erased"] = _erase(request, earlier)
        request.status_note = ""
        leftovers.observe(request)
    elif result.uncertain:
        request.status, request.status_note = Status.UNCERTAIN, result.message
    elif result.error_code == "session_not_found":
        request.status = Status.VOID
        request.status_note = (
            "Hermes says the session no longer exists. Nothing was deleted now. Request it "
            "again to have the dashboard erase its own copies."
        )
    else:
        # A definitive refusal changed nothing: the approval stands, under a
        # fresh key, because a new attempt is a new intent, not a replay.
        request.idempotency_key = mint_key()
        request.status_note = result.message + " Fix the cause, then execute again."
    request.save()
    announce.executed(request, user)


def check(request: DeletionRequest, user) -> str:
    """Settle an uncertain DELETE by reading the session: 404 means it was deleted.

    Returns the confirm-gone state of the target. Raises ``policy.Refusal`` or
    ``HermesError`` (the request stays uncertain then).
    """
    if not policy.is_admin(user, request):
        events.refused(user, request, "deletion_check", "wrong_role")
        raise policy.Refusal("wrong_role", "Only an admin can check a deletion.", 403)
    if request.status != Status.UNCERTAIN:
        raise policy.Refusal("not_uncertain", "Only an uncertain deletion needs a check.")
    client = client_for(policy.endpoint_of(request))
    try:
        client.get_session(request.session_id)
    except e.NotFound:
        return _confirmed(request, user, client)
    now = clock.now()
    # The provider deletes in one transaction: a session still there means nothing went.
    if request.expires_at and now >= request.expires_at:
        request.status = Status.EXPIRED
        request.status_note = (
            f"A check at {now:%H:%M:%S %Z} found the session still present, so the DELETE did "
            "not take effect; the approval has expired meanwhile. Nothing was deleted."
        )
    else:
        request.status, request.idempotency_key = Status.APPROVED, mint_key()
        request.status_note = (
            f"A check at {now:%H:%M:%S %Z} found the session still present: the DELETE did not "
            "take effect and nothing was deleted. You may execute again while the approval "
            "is valid."
        )
    request.save()
    events.record(user, request, "deletion_check", deleted=False)
    return confirm_gone.STILL_PRESENT


def _confirmed(request: DeletionRequest, user, client) -> str:
    consequences = request.consequences
    request.result = confirm_gone.after_delete(
        client,
        request.session_id,
        consequences.get("cascade", []),
        consequences.get("survivors", []),
    )
    request.status = Status.EXECUTED
    request.status_note = "A check confirmed that the session is gone (Hermes answers 404)."
    request.result["erased"] = _erase(request)
    leftovers.observe(request)
    request.save()
    events.record(user, request, "deletion_check", deleted=True)
    announce.executed(request, user)
    return confirm_gone.GONE
