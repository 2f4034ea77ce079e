"""What became of a write whose outcome was uncertain, by the key it was sent with.

Reconciled as the pages do it, by reading Hermes, never by sending again: a
change by its outcome page's checks (``changes.reconcile``), a chat turn by its
state and durability check, a deletion by the case page's check (a 404 from
Hermes means it is gone). 200 once the answer is known (``state`` "done",
"not_done" or "failed"), 202 while it is not. Only the key's own sender asks.
"""

from __future__ import annotations

from django.http import Http404, HttpResponse
from ninja import Router, Schema, Status

from hermes_ui.api.routes import common, keys
from hermes_ui.api.routes.changes import Pending, outcome_url
from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.changes import outcome_page, reconcile
from hermes_ui.chat.models import Turn, TurnState
from hermes_ui.chat.store import settle_if_orphaned
from hermes_ui.deletion import confirm_gone, execute, policy
from hermes_ui.deletion.case_page import case_or_403
from hermes_ui.deletion.models import Status as CaseStatus
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web.roles import SUPPORT

router = Router(tags=["writes"])
DONE, NOT_DONE, FAILED = "done", "not_done", "failed"


class Check(Schema):
    label: str
    state: str
    detail: str


class OutcomeOut(Schema):
    state: str
    operation: str
    message: str = ""
    session_id: str | None = None
    event_id: int | None = None
    turn_id: int | None = None
    request_id: int | None = None
    checks: list[Check] = []


@router.get(
    "/outcomes/{key}",
    response={200: OutcomeOut, 202: Pending},
    summary="The outcome of a write, by its Idempotency-Key",
    operation_id="outcome_get",
)
def outcome_get(request, response: HttpResponse, key: str):
    found = keys.find(request.user, key)
    if found is None:
        raise Http404("You sent no write with this key (or it is older than 24 hours).")
    record, operation, pointer = found
    common.endpoint(request, record.endpoint, SUPPORT)
    answer: dict | None
    if "event_id" in pointer:
        answer = _change(request, pointer["event_id"], record.endpoint)
    elif "turn_id" in pointer:
        answer = _turn(request, pointer["turn_id"], record.endpoint)
    elif "request_id" in pointer:
        answer = _deletion(request, pointer["request_id"])
    else:
        answer = {"state": DONE if record.outcome == Outcome.SUCCESS else NOT_DONE}
    if answer is None:
        url = outcome_url(key)
        response["Location"] = url
        words = "The outcome is not known yet: Hermes could not tell. Ask again later."
        return Status(202, {"state": "uncertain", "message": words, "location": url, **pointer})
    return Status(200, {"operation": operation, **pointer, **answer})


def _change(request, event_id: int, endpoint: str) -> dict | None:
    event = AuditEvent.objects.filter(pk=event_id, endpoint=endpoint).first()
    if event is None or event.capability not in outcome_page.ROLE_FOR:
        raise Http404("No such change.")
    outcome_page.require_viewer(request.user, event)
    session = {"session_id": event.session_id or None}
    if event.outcome == Outcome.SUCCESS:
        return {"state": DONE, **session}
    if event.outcome in {Outcome.REJECTED, Outcome.REFUSED}:
        return {"state": FAILED, "message": event.error_code, **session}
    report = outcome_page.report_of(client_for(get_endpoint(endpoint)), event)
    checks = [{"label": c.label, "state": c.state, "detail": c.detail} for c in report.checks]
    if report.complete:
        return {"state": DONE, "checks": checks, "message": report.verdict, **session}
    if any(c.state == reconcile.NO for c in report.checks):
        return {"state": NOT_DONE, "checks": checks, "message": report.verdict, **session}
    return None


def _turn(request, turn_id: int, endpoint: str) -> dict | None:
    turn = Turn.objects.filter(pk=turn_id, endpoint=endpoint, user=request.user).first()
    if turn is None:
        raise Http404("No such chat turn.")
    turn = settle_if_orphaned(turn)
    session = {"session_id": turn.effective_session_id or turn.target_session_id}
    if turn.state == TurnState.COMPLETED:
        return {"state": DONE, **session}
    if turn.rejected:
        return {"state": FAILED, "message": turn.error_code, **session}
    status = (turn.durability or {}).get("status")
    if turn.active or status not in {"verified", "missing"}:
        return None
    # Not completed as far as the stream said, but the transcript says what happened.
    return {"state": DONE if status == "verified" else NOT_DONE, **session}


def _deletion(request, request_id: int) -> dict | None:
    case = case_or_403(request, request_id)
    session = {"session_id": case.session_id}
    if case.status == CaseStatus.EXECUTED:
        return {"state": DONE, **session}
    if case.status != CaseStatus.UNCERTAIN:
        return {"state": NOT_DONE, "message": case.status_note, **session}
    if not policy.is_admin(request.user, case):
        return None
    try:
        gone = execute.check(case, request.user)
    except (policy.Refusal, HermesError):
        return None
    state = DONE if gone == confirm_gone.GONE else NOT_DONE
    case.refresh_from_db()
    return {"state": state, "message": case.status_note, **session}
