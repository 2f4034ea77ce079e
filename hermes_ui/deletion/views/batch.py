"""A bulk deletion's page: its members, one approval, the execution and its progress."""

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from hermes_ui.access.rules import access_of
from hermes_ui.background.jobs.respond import started
from hermes_ui.deletion import approval_job, policy, signals
from hermes_ui.deletion import batch as batches
from hermes_ui.deletion.forms import DecisionForm
from hermes_ui.deletion.models import DeletionBatch, Status
from hermes_ui.index.models import IndexedSession
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN, role_required

POLL_SECONDS = 1


def _batch_or_403(request, pk: int) -> DeletionBatch:
    """The batch, if this person may open it: 404 on an endpoint they may not see (as for
    one that does not exist), 403 unless they are admin there or the requester."""
    batch = get_object_or_404(DeletionBatch, pk=pk)
    access = access_of(request.user)
    if access.role_on(batch.endpoint, any_source=True) is None:
        raise Http404("No such deletion request.")
    is_requester = batch.requester_id is not None and batch.requester_id == request.user.pk
    if not (access.has(ADMIN, batch.endpoint, any_source=True) or is_requester):
        raise PermissionDenied("This needs the admin role, or to be the requester.")
    return batch


def render_batch(
    request: HtmxHttpRequest, batch: DeletionBatch, *, status: int = 200, **extra
) -> HttpResponse:
    for member in batch.members.all():
        policy.expire_if_due(member)
    # Only the members whose sessions this person sees (a source limit hides some).
    members = [m for m in batches.members(batch) if policy.sees(m, request.user)]
    rows = [{"case": m, "verdict": batches.verdict(m, batch)} for m in members]
    hidden = frozenset().union(*(policy.hidden_ids(request.user, m) for m in members))
    selected = {m.session_id for m in members}
    admin = bool(members) and all(policy.is_admin(request.user, m) for m in members)
    approving = approval_job.running(batch)
    counts = {}  # type: ignore[var-annotated]
    for row in rows:
        counts[row["verdict"]] = counts.get(row["verdict"], 0) + 1
    context = {
        "batch": batch,
        "skipped": _visible_skipped(batch, request.user),
        "hidden_ids": hidden,
        "rows": rows,
        "selected": selected,
        "counts": sorted(counts.items()),
        "done": sum(1 for m in members if m.status != Status.APPROVED),
        "running": bool(batch.started_at and not batch.finished_at),
        "approving": approving,
        "can_approve": admin
        and approving is None
        and request.user.pk not in (batch.requester_id, batch.selected_by_id)
        and any(m.status == Status.PENDING for m in members),
        "can_execute": admin
        and not batch.started_at
        and any(m.status == Status.APPROVED for m in members),
        "form": extra.pop("form", None) or DecisionForm(),
        "poll_seconds": POLL_SECONDS,
        "panels": signals.panels(batch, request.user),
        **extra,
    }
    template = "deletion/batch.html#batch" if request.htmx else "deletion/batch.html"
    return render(request, template, context, status=status)


def _visible_skipped(batch: DeletionBatch, user) -> list[dict]:
    """The selected sessions that did not become members, those this person may see.

    A source-limited person sees only ids whose index row has a source they see.
    """
    access = access_of(user)
    if not batch.skipped or not access.source_limited(batch.endpoint):
        return batch.skipped
    ids = [s["id"] for s in batch.skipped]
    seen = set(
        IndexedSession.objects.filter(endpoint=batch.endpoint, session_id__in=ids)
        .filter(access.session_q())
        .values_list("session_id", flat=True)
    )
    return [s for s in batch.skipped if s["id"] in seen]


@require_GET
@vary_on_headers("HX-Request")
def deletion_batch(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    return render_batch(request, _batch_or_403(request, pk))


@require_POST
@role_required(ADMIN, on_refusal=_batch_or_403)  # a batch that does not exist is a 404
def deletion_batch_decide(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    """Start the decision (a job: approving re-reads every member); answer with its progress."""
    batch = _batch_or_403(request, pk)
    form = DecisionForm(request.POST)
    if not form.is_valid():
        return render_batch(request, batch, status=400, form=form)
    data = form.cleaned_data
    try:
        job = approval_job.start(
            batch, request.user, data["decision"], data["policy_rule"], data["comment"]
        )
    except policy.Refusal as refusal:
        return render_batch(request, batch, status=refusal.status, refusal=refusal)
    return started(request, job)


@require_POST
@role_required(ADMIN, on_refusal=_batch_or_403)
def deletion_batch_execute(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    batch = _batch_or_403(request, pk)
    try:
        started = batches.start(batch, request.user)
    except policy.Refusal as refusal:
        return render_batch(request, batch, status=refusal.status, refusal=refusal)
    if not started:
        messages.info(request, "This request is already being executed: showing its progress.")
    return redirect("deletion_batch", pk=batch.pk)
