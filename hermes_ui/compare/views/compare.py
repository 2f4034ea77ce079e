"""Compare two sessions, record a verdict on them, and list forks awaiting one."""

from dataclasses import replace

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from hermes_ui.access.scope import HiddenSession
from hermes_ui.compare import align, deltas, sides, verdicts
from hermes_ui.compare.forms import PairForm, VerdictForm
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.search import visibility
from hermes_ui.web import links
from hermes_ui.web.failures import error_page
from hermes_ui.web.roles import REVIEWER, SUPPORT, has_role, role_required


@require_GET
@role_required(SUPPORT)
def compare(request: HttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    pair = PairForm(request.GET)
    if not request.GET:
        return render(request, "compare/page.html", {"endpoint": ep, "pair": PairForm()})
    if not pair.is_valid():
        return render(request, "compare/page.html", {"endpoint": ep, "pair": pair}, status=400)
    a_id, b_id = pair.cleaned_data["a"], pair.cleaned_data["b"]
    _visible_or_404(request.user, ep, (a_id, b_id))
    client = client_for(ep)
    try:
        a = sides.read_side(client, ep, a_id)
        b = sides.read_side(client, ep, b_id)
    except HermesError as error:
        return error_page(request, error, ep)
    context = {
        "endpoint": ep,
        "pair": pair,
        "a": a,
        "b": b,
        "a_url": links.session_url(ep.id, a_id),
        "b_url": links.session_url(ep.id, b_id),
        "a_resolved_url": links.session_url(ep.id, a.resolved_id),
        "b_resolved_url": links.session_url(ep.id, b.resolved_id),
        "swap_url": links.compare_url(ep.id, b_id, a_id),
        "alignment": align.align(a.rows, b.rows) if a.comparable and b.comparable else None,  # type: ignore[arg-type]
        "deltas": deltas.deltas(a.session, b.session, a.rows, b.rows),
        "verdict": verdicts.latest_for_pair(ep, a_id, b_id),
        "history": verdicts.history_for_pair(ep, a_id, b_id),
        "verdict_form": VerdictForm(initial={"a": a_id, "b": b_id}),
        "can_judge": has_role(request.user, REVIEWER),
    }
    return render(request, "compare/page.html", context)


@require_POST
@role_required(REVIEWER)
def record_verdict(request: HttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    form = VerdictForm(request.POST)
    if not form.is_valid():
        a_id, b_id = request.POST.get("a", ""), request.POST.get("b", "")
        back = (
            links.compare_url(ep.id, a_id, b_id)
            if a_id and b_id
            else reverse("compare", args=[ep.id])
        )
        context = {"endpoint": ep, "verdict_form": form, "back_url": back}
        return render(request, "compare/verdict_error.html", context, status=400)
    data = form.cleaned_data
    _visible_or_404(request.user, ep, (data["a"], data["b"]), REVIEWER)
    verdicts.record(ep, request.user, data["a"], data["b"], data["choice"], data["reason"])
    messages.success(request, "Your verdict was recorded.")
    return redirect(links.compare_url(ep.id, data["a"], data["b"]) + "#verdict")


@require_GET
@role_required(SUPPORT)
def to_review(request: HttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    pending = verdicts.to_review(ep)
    if visibility.limits(request.user, ep.id):
        named = [sid for item in pending for sid in (item.fork.parent_id, item.fork.child_id)]
        named += [sid for item in pending for sid in item.siblings]
        seen = set(visibility.allowed_ids(request.user, ep, list(dict.fromkeys(named))))
        pending = [
            replace(item, siblings=[s for s in item.siblings if s in seen])
            for item in pending
            if item.fork.parent_id in seen and item.fork.child_id in seen
        ]
    rows = [
        {
            "fork": item.fork,
            "parent_url": links.session_url(ep.id, item.fork.parent_id),
            "child_url": links.session_url(ep.id, item.fork.child_id),
            "with_parent": links.compare_url(ep.id, item.fork.parent_id, item.fork.child_id),
            "with_siblings": [
                (s, links.compare_url(ep.id, item.fork.child_id, s)) for s in item.siblings
            ],
        }
        for item in pending
    ]
    return render(request, "compare/to_review.html", {"endpoint": ep, "rows": rows})


def _visible_or_404(user, ep, session_ids, needed=SUPPORT) -> None:
    """Both sides must be sessions the person may open: else the very 404 of a
    session that does not exist (``access.scope.HiddenSession``), naming only
    the id they typed."""
    for session_id in session_ids:
        if not visibility.may_act(user, ep.id, session_id, needed):
            raise HiddenSession(ep.id, session_id)
