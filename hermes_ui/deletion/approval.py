"""The four-eyes approval: an admin who is not the requester approves or rejects."""

from __future__ import annotations

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import Outcome
from hermes_ui.deletion import announce, clock, events, policy, snapshot
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.hermes import client_for
from hermes_ui.hermes import errors as e

APPROVE, REJECT = "approve", "reject"


def void(request: DeletionRequest, user, code: str, note: str) -> policy.Refusal:
    """Mark the request void and return the refusal that explains it."""
    request.status = Status.VOID
    request.status_note = note
    request.save(update_fields=["status", "status_note", "updated_at"])
    events.record(user, request, "deletion_void", Outcome.REFUSED, error_code=code, code=code)
    return policy.Refusal(code, note)


def still_matches(request: DeletionRequest, user) -> dict:
    """Re-read the session; void the request (raising the refusal) if it changed.

    Returns the fresh snapshot. A Hermes failure other than "not found"
    propagates: it says nothing about the session, so the request stays.
    """
    client = client_for(policy.endpoint_of(request))
    try:
        current = snapshot.take(client, request.session_id)
    except e.NotFound:
        if request.erase_only:
            return request.snapshot  # still gone, as when it was asked for
        earlier = " (perhaps by an earlier attempt whose outcome was uncertain)"
        raise void(
            request,
            user,
            "session_gone",
            "The session no longer exists on Hermes: it was deleted outside this "
            f"request{earlier if request.attempts else ''}. Nothing was deleted now. "
            "Request it again to have the dashboard erase its own copies.",
        ) from None
    if request.erase_only:
        raise void(
            request,
            user,
            "session_back",
            "Hermes has a session with this id again, so the dashboard's copies are not "
            "only copies of a deleted session. Nothing was erased. Request a deletion if "
            "it is still wanted.",
        )
    changes = snapshot.differences(request.snapshot, current)
    if changes:
        raise void(
            request,
            user,
            "snapshot_changed",
            "The session changed after the request was made: " + "; ".join(changes) + ". "
            "The approval is void and nothing was deleted. Request the deletion again "
            "if it is still wanted, so the approver sees the session as it is now.",
        )
    return current


def decide(request: DeletionRequest, user, decision: str, rule: str, comment: str) -> None:
    """Record the decision. Raises ``policy.Refusal`` or ``HermesError``."""
    capability = "deletion_approve" if decision == APPROVE else "deletion_reject"
    refusal = policy.approval_refusal(request, user)
    if refusal is not None:
        events.refused(user, request, capability, refusal.code)
        raise refusal
    if decision == APPROVE:
        # Approving what the session no longer is would approve nothing anyone saw.
        still_matches(request, user)
    now = clock.now()
    fields = {
        "approver": user,
        "approver_name": user.get_username(),
        "policy_rule": rule,
        "decision_comment": comment,
        "decided_at": now,
        "status": Status.APPROVED if decision == APPROVE else Status.REJECTED,
    }
    if decision == APPROVE:
        fields.update(
            approved_at=now, expires_at=now + policy.APPROVAL_VALIDITY, idempotency_key=mint_key()
        )
    # Conditional on "still pending": of two admins deciding at once, one wins.
    won = DeletionRequest.objects.filter(pk=request.pk, status=Status.PENDING).update(**fields)
    request.refresh_from_db()
    if not won:
        events.refused(user, request, capability, "not_pending")
        raise policy.Refusal("not_pending", "Another admin decided this request a moment ago.")
    events.record(
        user,
        request,
        capability,
        policy_rule=rule,
        comment=comment,
        digest=request.snapshot.get("digest"),
    )
    announce.decided(request, user)


def withdraw(request: DeletionRequest, user) -> None:
    if not (policy.is_requester(request, user) or policy.is_admin(user, request)):
        events.refused(user, request, "deletion_withdraw", "wrong_role")
        raise policy.Refusal("wrong_role", "Only the requester or an admin can withdraw.", 403)
    if request.status not in (Status.PENDING, Status.APPROVED):
        raise policy.Refusal(
            "not_open", f"This request is {request.get_status_display()} and cannot be withdrawn."
        )
    request.status = Status.VOID
    request.status_note = f"Withdrawn by {user.get_username()}. Nothing was deleted."
    request.save(update_fields=["status", "status_note", "updated_at"])
    events.record(user, request, "deletion_withdraw")
