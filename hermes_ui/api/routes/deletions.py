"""A deletion request after it is filed: its state, the four-eyes decision, the DELETE.

The steps are the case page's (``deletion.approval.decide``, ``deletion.execute``):
only an admin of the session's endpoint and source who is neither the requester nor
who chose the request decides, one who sees every session the deletion removes
(``policy._unseen``); only an approved, unexpired request is executed, once. Each
refusal is audited as on the page. An uncertain DELETE answers 202 with the
``Location`` of its outcome, which a check settles by reading Hermes.
"""

from __future__ import annotations

from datetime import datetime

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from ninja import Field, Router, Schema, Status

from hermes_ui.access.rules import access_of
from hermes_ui.api.document import Comment
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common, keys
from hermes_ui.api.routes.changes import Pending, form_errors, pending
from hermes_ui.audit.models import Outcome
from hermes_ui.deletion import approval, events, execute, policy
from hermes_ui.deletion.case_page import case_or_403
from hermes_ui.deletion.forms import DecisionForm
from hermes_ui.deletion.models import DeletionRequest
from hermes_ui.deletion.policy import APPROVE_RULES, REJECT_RULES
from hermes_ui.hermes import HermesError
from hermes_ui.web.roles import ADMIN, SUPPORT

router = Router(tags=["deletions"])


class DeletionOut(Schema):
    request_id: int
    session_id: str
    state: str
    status_note: str
    requester: str
    approver: str | None = None
    created_at: datetime
    expires_at: datetime | None = None
    executed_at: datetime | None = None
    replayed: bool = False


class Approve(Schema):
    policy_rule: str = Field(json_schema_extra={"enum": [*APPROVE_RULES]})
    comment: Comment


class Reject(Schema):
    reason: Comment
    policy_rule: str = Field("insufficient_reason", json_schema_extra={"enum": [*REJECT_RULES]})


def case_out(case: DeletionRequest, replayed: bool = False) -> dict:
    return {
        "request_id": case.pk,
        "session_id": case.session_id,
        "state": case.status,
        "status_note": case.status_note,
        "requester": case.requester_name,
        "approver": case.approver_name or None,
        "created_at": case.created_at,
        "expires_at": case.expires_at,
        "executed_at": case.executed_at,
        "replayed": replayed,
    }


def _case(request, endpoint: str, request_id: int) -> DeletionRequest:
    """The case as its page finds it (404 unseen, 403 neither admin nor requester), on
    the endpoint named in the path."""
    common.endpoint(request, endpoint, SUPPORT)
    case = case_or_403(request, request_id)
    if case.endpoint != endpoint:
        raise Http404("No such deletion request.")
    return case


def _admin(request, case: DeletionRequest, capability: str) -> None:
    """The page's role check, audited against the case as the page audits it."""
    if not access_of(request.user).has(ADMIN, case.endpoint, any_source=True):
        events.refused(request.user, case, capability, "wrong_role")
        raise PermissionDenied("This needs the admin role.")


def _refused(refusal: policy.Refusal) -> ApiError:
    return ApiError(refusal.status, refusal.code, refusal.message)


@router.get(
    "/e/{endpoint}/deletions/{int:request_id}",
    response={200: DeletionOut},
    summary="A deletion request's state",
    operation_id="deletion_get",
)
def deletion_get(request, endpoint: str, request_id: int):
    return case_out(_case(request, endpoint, request_id))


def _decide(request, endpoint: str, request_id: int, decision: str, rule: str, comment: str):
    case = _case(request, endpoint, request_id)
    _admin(request, case, "deletion_approval")
    ep = common.endpoint(request, endpoint, SUPPORT)
    inputs = {"request_id": case.pk, "rule": rule, "comment": comment}
    claim = keys.claim(request, f"deletion_{decision}", ep, inputs, case.session_id)
    if not claim.fresh:
        return case_out(case, replayed=True)
    refusal = policy.batch_refusal(case)
    form = DecisionForm({"decision": decision, "policy_rule": rule, "comment": comment})
    if refusal is None and not form.is_valid():
        claim.release()
        raise bad_request(form_errors(form))
    try:
        if refusal is not None:
            raise refusal
        data = form.cleaned_data
        approval.decide(case, request.user, decision, data["policy_rule"], data["comment"])
    except (policy.Refusal, HermesError) as error:
        claim.release()
        raise _refused(error) if isinstance(error, policy.Refusal) else error from None
    claim.done({"request_id": case.pk})
    case.refresh_from_db()
    return case_out(case)


@router.post(
    "/e/{endpoint}/deletions/{int:request_id}/approve",
    response={200: DeletionOut},
    summary="Approve a deletion (a second admin)",
    operation_id="deletion_approve",
)
def deletion_approve(request, endpoint: str, request_id: int, body: Approve):
    """``policy_rule`` is one of the grounds to delete (the case page's list)."""
    return _decide(request, endpoint, request_id, approval.APPROVE, body.policy_rule, body.comment)


@router.post(
    "/e/{endpoint}/deletions/{int:request_id}/reject",
    response={200: DeletionOut},
    summary="Reject a deletion (a second admin)",
    operation_id="deletion_reject",
)
def deletion_reject(request, endpoint: str, request_id: int, body: Reject):
    """``reason`` is the decision's comment; ``policy_rule`` one of the grounds to keep."""
    return _decide(request, endpoint, request_id, approval.REJECT, body.policy_rule, body.reason)


@router.post(
    "/e/{endpoint}/deletions/{int:request_id}/execute",
    response={200: DeletionOut, 202: Pending},
    summary="Execute an approved deletion",
    operation_id="deletion_execute",
)
def deletion_execute(request, response: HttpResponse, endpoint: str, request_id: int):
    """Done at once, as on the case page: 200 with the executed request; 202 when the
    DELETE's outcome is uncertain (nothing is sent again: poll the Location)."""
    case = _case(request, endpoint, request_id)
    _admin(request, case, execute.CAPABILITY)
    ep = common.endpoint(request, endpoint, SUPPORT)
    claim = keys.claim(request, "deletion_execute", ep, {"request_id": case.pk}, case.session_id)
    try:
        result = execute.execute(case, request.user)
    except policy.Refusal as refusal:
        claim.release()
        raise _refused(refusal) from None
    except HermesError:
        claim.release()
        raise
    case.refresh_from_db()
    if result.outcome in {Outcome.UNCERTAIN, Outcome.RUNNING}:
        return pending(claim, response, result.message, request_id=case.pk)
    claim.done({"request_id": case.pk}, result.outcome)
    if not result.ok:
        message = case.status_note or result.message
        raise ApiError(502, result.error_code or "delete_failed", message)
    return Status(200, case_out(case, replayed=result.replayed or not claim.fresh))
