"""The steps of a deletion request: approval, execute, check an uncertain DELETE, withdraw.

Each is a POST that re-renders the case block for htmx and redirects
otherwise. A refusal (wrong person, expired, changed session) is shown on the
case page with its reason and a 403 or 409; a Hermes failure as a banner.
"""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from hermes_ui.deletion import approval, events, execute, follow_up, policy
from hermes_ui.deletion.case_page import case_or_403, render_case
from hermes_ui.deletion.forms import DecisionForm
from hermes_ui.hermes import HermesError
from hermes_ui.web.failures import error_context, status_for
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN, role_required


def _done(request, case, notice: str = ""):
    if request.htmx:
        return render_case(request, case, notice=notice)
    if notice:
        messages.info(request, notice)
    return redirect("deletion_detail", pk=case.pk)


def _audit_refusal(capability: str):
    """For ``role_required``: a step refused for the role is audited against its case
    (a case the person may not see, or that does not exist, answers 403 or 404 first)."""

    def refused(request, pk: int) -> None:
        case = case_or_403(request, pk)
        events.refused(request.user, case, capability, "wrong_role")

    return refused


def _step(request, case, action, notice=lambda outcome: ""):
    try:
        outcome = action()
    except policy.Refusal as refusal:
        case.refresh_from_db()
        return render_case(request, case, status=refusal.status, refusal=refusal)
    except HermesError as error:
        case.refresh_from_db()
        return render_case(
            request, case, status=status_for(error), step_error=error_context(error, None)
        )
    case.refresh_from_db()
    return _done(request, case, notice(outcome))


@require_POST
@role_required(ADMIN, on_refusal=_audit_refusal("deletion_approval"))
def deletion_decide(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = case_or_403(request, pk)
    refusal = policy.batch_refusal(case)
    if refusal is not None:
        return render_case(request, case, status=409, refusal=refusal)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        return render_case(request, case, status=400, form=form)
    data = form.cleaned_data
    return _step(
        request,
        case,
        lambda: approval.decide(
            case, request.user, data["decision"], data["policy_rule"], data["comment"]
        ),
    )


@require_POST
@role_required(ADMIN, on_refusal=_audit_refusal("session_delete"))
def deletion_execute(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = case_or_403(request, pk)
    return _step(request, case, lambda: execute.execute(case, request.user), _replay_notice)


def _replay_notice(result) -> str:
    if not result.replayed:
        return ""
    if result.uncertain:
        return (
            "This DELETE was already sent and its outcome is uncertain, so it is not sent "
            "again. Check what happened."
        )
    return "This deletion had already been executed: showing its recorded outcome."


@require_POST
@role_required(ADMIN, on_refusal=_audit_refusal("deletion_check"))
def deletion_check(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = case_or_403(request, pk)
    return _step(request, case, lambda: execute.check(case, request.user))


@require_POST
def deletion_withdraw(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    case = case_or_403(request, pk)
    return _step(request, case, lambda: approval.withdraw(case, request.user))


@require_POST
def deletion_follow_up(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """File the follow-up request for what an incomplete deletion left on Hermes."""
    case = case_or_403(request, pk)
    try:
        made = follow_up.file(case, request.user)
    except policy.Refusal as refusal:
        case.refresh_from_db()
        return render_case(request, case, status=refusal.status, refusal=refusal)
    except HermesError as error:
        case.refresh_from_db()
        return render_case(
            request, case, status=status_for(error), step_error=error_context(error, None)
        )
    messages.success(
        request,
        f"Bulk deletion request #{made.pk} asks for the sessions deletion #{case.pk} left on "
        "Hermes; an admin other than you approves it.",
    )
    return redirect("deletion_batch", pk=made.pk)
