"""A queue's rules: list them with their last run, add one, run one now, delete one."""

from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import rules
from hermes_ui.review.models import Rule
from hermes_ui.review.queue_access import may_manage, queue_of
from hermes_ui.review.rules_forms import RuleAction, RuleForm
from hermes_ui.web.failures import bad_id
from hermes_ui.web.roles import REVIEWER, role_required


@require_http_methods(["GET", "POST"])
@role_required(REVIEWER)
def queue_rules(request: HttpRequest, endpoint, queue) -> HttpResponse:
    ep = get_endpoint(endpoint)
    queue = queue_of(ep, queue)
    manage = may_manage(request.user, queue)
    form = RuleForm()
    if request.method == "POST":
        if not manage:
            raise PermissionDenied("Only the queue's owner or an admin changes its rules.")
        if "action" in request.POST:
            return _act(request, ep, queue)
        form = RuleForm(request.POST)
        if form.is_valid():
            rule = Rule.objects.create(queue=queue, created_by=request.user, **form.cleaned_data)  # type: ignore[misc]
            _audit(request, ep, "review.rule_add", rule)
            return redirect(_here(ep, queue))
    context = {
        "endpoint": ep,
        "queue": queue,
        "rules": _with_notes(queue.rules.select_related("created_by")),
        "form": form,
        "manage": manage,
    }
    return render(request, "review/rules.html", context, status=400 if form.errors else 200)


def _with_notes(found) -> list[Rule]:
    """The rules, each with the notes of its searches (``foo:bar`` searched as words)."""
    listed = list(found)
    for rule in listed:
        rule.search_notes = rules.notes(rule.query) + rules.notes(rule.always or "")
    return listed


def _act(request, ep, queue):
    action = RuleAction(request.POST)
    if not action.is_valid():
        return bad_id(request, ep, "Choose a rule of this queue and an action (run or delete).")
    rule = queue.rules.filter(pk=action.cleaned_data["rule"]).first()
    if rule is None:
        return bad_id(request, ep, "This queue has no such rule (it may have been deleted).")
    if action.cleaned_data["action"] == "run":
        rules.run(ep, rule, request.user)
    else:
        _audit(request, ep, "review.rule_delete", rule)
        rule.delete()
    return redirect(_here(ep, queue))


def _audit(request, ep, capability: str, rule: Rule) -> None:
    trail.record(  # the rule's id only: never its search text
        request.user,
        capability=capability,
        endpoint=ep.id,
        outcome=Outcome.SUCCESS,
        evidence={"id": rule.pk},
    )


def _here(ep, queue) -> str:
    return reverse("review_rules", kwargs={"endpoint": ep.id, "queue": queue.pk})
