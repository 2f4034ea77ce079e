"""The steps of a deletion request: review, execute, check an uncertain DELETE, withdraw.

Each is a POST that re-renders the case block for htmx and redirects
otherwise. A refusal (wrong person, expired, changed session) is shown on the
case page with its reason and a 403 or 409; a Hermes failure as a banner.
"""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from hermes_ui.deletion import events, execute, policy, review
from hermes_ui.deletion.case_page import case_or_403, render_case
from hermes_ui.deletion.forms import DecisionForm
from hermes_ui.hermes import HermesError
from hermes_ui.web.failures import error_context, status_for


def _done(request, case, notice: str = ""):
    if request.htmx:
        return render_case(request, case, notice=notice)
    if notice:
        messages.info(request, notice)
    return redirect("deletion_detail", pk=case.pk)


def _admin_only(request, case, capability: str) -> None:
    # Checked before anything else so a wrong role never learns more than "no".
    if not policy.is_admin(request.user):
        events.refused(request.user, case, capability, "wrong_role")
        raise PermissionDenied("This needs the admin role.")


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
def deletion_decide(request, pk: int):
    case = case_or_403(request, pk)
    _admin_only(request, case, "deletion_review")
    if case.batch_id is not None:
        # One review covers a bulk request: its members are not decided one by one.
        refusal = policy.Refusal(
            "in_batch",
            "This session is part of a bulk deletion request: review the request as a whole.",
        )
        return render_case(request, case, status=409, refusal=refusal)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        return render_case(request, case, status=400, form=form)
    data = form.cleaned_data
    return _step(
        request,
        case,
        lambda: review.decide(
            case, request.user, data["decision"], data["policy_rule"], data["comment"]
        ),
    )


@require_POST
def deletion_execute(request, pk: int):
    case = case_or_403(request, pk)
    _admin_only(request, case, "session_delete")
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
def deletion_check(request, pk: int):
    case = case_or_403(request, pk)
    _admin_only(request, case, "deletion_check")
    return _step(request, case, lambda: execute.check(case, request.user))


@require_POST
def deletion_withdraw(request, pk: int):
    case = case_or_403(request, pk)
    return _step(request, case, lambda: review.withdraw(case, request.user))
