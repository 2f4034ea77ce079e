"""Retention pages (admins): rules per endpoint, versions and runs, preview, keep tags.

Per endpoint roles (the one rule, ``access.rules``): a rule of an endpoint, its
preview and its runs need the admin role on that endpoint for every source (a
rule's search spans every source, so a source-limited admin would see and file
sessions they may not see); keep tags protect sessions on every endpoint, so
changing them is instance administration. Lists show managed endpoints only.
"""

from functools import wraps

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from hermes_ui.access.rules import access_of
from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.hermes import HermesError
from hermes_ui.platform.endpoints import all_endpoints, get_endpoint
from hermes_ui.retention import evaluate, pruning, runs
from hermes_ui.retention.forms import KeepTagForm, RuleForm
from hermes_ui.retention.models import KeepTag, RetentionRule, RetentionRun, RuleVersion
from hermes_ui.tags.models import Tag
from hermes_ui.web.roles import ADMIN, instance_admin_required, role_required

SAMPLE = 20  # proposed sessions a preview or a run page lists


def manages(user, endpoint_id: str) -> bool:
    """Admin on ``endpoint_id`` for every source: who manages its retention."""
    return access_of(user).has(ADMIN, endpoint_id)


def managed_endpoints(user) -> list:
    return [ep for ep in all_endpoints() if manages(user, ep.id)]


def endpoint_admin_required(view):
    """The view of one endpoint's retention: admin there on every source, else a 403.

    (The door, ``access.scope``, already answered 404 for an endpoint not seen.)
    """

    @wraps(view)
    def wrapper(request, endpoint, **kwargs):
        if not manages(request.user, endpoint):
            raise PermissionDenied(
                "Retention on this endpoint needs the admin role on all of its sources."
            )
        return view(request, endpoint, **kwargs)

    return role_required(ADMIN)(wrapper)


@require_GET
@role_required(ADMIN)
def overview(request: HttpRequest) -> HttpResponse:
    rules = RetentionRule.objects.order_by("endpoint", "name")
    endpoints = managed_endpoints(request.user)
    if not access_of(request.user).instance_admin:
        # Rules of the endpoints this person manages; an instance admin also sees the
        # rules of endpoints since removed from the settings.
        rules = rules.filter(endpoint__in=[ep.id for ep in endpoints])
    context = {
        "endpoints": endpoints,
        "gone": [(ep, pruning.gone(ep)) for ep in endpoints],
        "prune_days": pruning.PRUNE_DAYS,
        "rules": rules,
        "keep": KeepTag.objects.select_related("tag"),
        "tags": Tag.objects.exclude(pk__in=KeepTag.objects.values("tag_id")),
        "keep_form": KeepTagForm(),
    }
    return render(request, "retention/overview.html", context)


@require_POST
@instance_admin_required
def keep_tags(request: HttpRequest) -> HttpResponse:
    form = KeepTagForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Choose a tag of the managed list.")
        return redirect("retention")
    tag = form.cleaned_data["tag"]
    if form.cleaned_data["op"] == "add":
        KeepTag.objects.get_or_create(
            tag=tag, defaults={"added_by_name": request.user.get_username()}
        )
        messages.success(request, f"Sessions tagged “{tag.name}” are now protected from retention.")
    else:
        KeepTag.objects.filter(tag=tag).delete()
        messages.success(request, f"Tag “{tag.name}” no longer protects sessions.")
    # Which protection changed, by name too: the trail must show what was unprotected.
    op = form.cleaned_data["op"]
    _audit(request.user, "", "retention.keep_tag", id=tag.pk, keep_tag=tag.name, op=op)
    return redirect("retention")


@require_http_methods(["GET", "POST"])
@endpoint_admin_required
def endpoint_rules(request: HttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    form = RuleForm(request.POST or None, endpoint_id=ep.id)
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            rule = RetentionRule.objects.create(  # type: ignore[misc]
                **ep.scope(), **form.cleaned_data, updated_by=request.user
            )
            _version(rule, request.user)
        _audit(request.user, ep.id, "retention.rule_add", id=rule.pk, version=1)
        messages.success(request, f"Rule “{rule.name}” added. Preview it before its first run.")
        return redirect(_rule_url(rule))
    context = {"endpoint": ep, "rules": runs.rules_of(ep), "form": form}
    return render(request, "retention/rules.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@endpoint_admin_required
def rule_page(request: HttpRequest, endpoint, rule) -> HttpResponse:
    ep = get_endpoint(endpoint)
    rule = _rule_or_404(ep, rule)
    form = RuleForm(request.POST or None, endpoint_id=ep.id, rule=rule)
    if request.method == "POST" and form.is_valid():
        changed = {k: v for k, v in form.cleaned_data.items() if getattr(rule, k) != v}
        if changed:
            with transaction.atomic():
                for name, value in changed.items():
                    setattr(rule, name, value)
                rule.version += 1
                rule.updated_by = request.user
                rule.save()
                _version(rule, request.user)
            _audit(request.user, ep.id, "retention.rule_edit", id=rule.pk, version=rule.version)
            messages.success(request, f"Rule saved as version {rule.version}.")
        return redirect(_rule_url(rule))
    context = {
        "endpoint": ep,
        "rule": rule,
        "form": form,
        "versions": rule.versions.all()[:20],
        "runs": rule.runs.all()[:20],
    }
    return render(request, "retention/rule.html", context, status=400 if form.errors else 200)


@require_GET
@endpoint_admin_required
def preview(request: HttpRequest, endpoint, rule) -> HttpResponse:
    ep = get_endpoint(endpoint)
    rule = _rule_or_404(ep, rule)
    found = evaluate.evaluate(ep, rule)
    context = {"endpoint": ep, "rule": rule, "found": found, "sample": found.proposed[:SAMPLE]}
    return render(request, "retention/preview.html", context)


@require_POST
@endpoint_admin_required
def run_now(request: HttpRequest, endpoint, rule) -> HttpResponse:
    ep = get_endpoint(endpoint)
    rule = _rule_or_404(ep, rule)
    try:
        run = runs.file(ep, rule, request.user)
    except runs.RunRefused as refusal:
        messages.error(request, str(refusal))
        return redirect(_rule_url(rule))
    except HermesError as error:
        messages.error(request, f"Hermes could not be read, so nothing was filed: {error.message}")
        return redirect(_rule_url(rule))
    if run.batch_id:
        messages.success(
            request,
            f"Filed deletion batch #{run.batch_id} with {run.proposed} session(s); "
            "a second admin reviews it.",
        )
    else:
        messages.info(request, "Nothing to propose: no unprotected session matches the rule.")
    return redirect(reverse("retention_run", kwargs={"endpoint": ep.id, "run": run.pk}))


@require_GET
@endpoint_admin_required
def run_page(request: HttpRequest, endpoint, run) -> HttpResponse:
    ep = get_endpoint(endpoint)
    run = RetentionRun.objects.filter(pk=run, endpoint=ep.id).select_related("rule").first()
    if run is None:
        raise Http404("No such retention run on this endpoint.")
    return render(request, "retention/run.html", {"endpoint": ep, "run": run, **summary(run)})


def summary(run: RetentionRun) -> dict:
    """What an approver sees of a run: counts per source, oldest and newest, a sample,
    the protected ones (from the batch's snapshots, which the deletion feature keeps),
    and the proposed ones the rule's previous run spared (their protection went since)."""
    batch = runs.batch_of(run)
    members = list(batch.members.all()) if batch else []
    rows = [m.snapshot.get("row") or {} for m in members]
    sources: dict[str, int] = {}
    for row in rows:
        sources[row.get("source") or "(none)"] = sources.get(row.get("source") or "(none)", 0) + 1
    active = [r for r in rows if r.get("last_active") or r.get("started_at")]

    def when(row):
        return row.get("last_active") or row.get("started_at") or 0

    return {
        "batch": batch,
        "sources": sorted(sources.items(), key=lambda item: (-item[1], item[0])),
        "oldest": min(active, key=when, default=None),
        "newest": max(active, key=when, default=None),
        "sample": rows[:SAMPLE],
        "protected": [
            {**p, "detail": evaluate.WHY.get(p.get("why"), p.get("why"))} for p in run.protected
        ],
        "unprotected": unprotected(run, [m.session_id for m in members]),
    }


def unprotected(run: RetentionRun, proposed: list[str]) -> list[dict]:
    """The proposed sessions the rule's previous run spared, with the reason it gave then."""
    previous = (
        RetentionRun.objects.filter(rule_id=run.rule_id, pk__lt=run.pk)
        .order_by("-pk")
        .values_list("protected", flat=True)
        .first()
    )
    spared = {p["id"]: p["why"] for p in previous or []}
    return [
        {"id": sid, "why": spared[sid], "detail": evaluate.WHY.get(spared[sid], spared[sid])}
        for sid in proposed
        if sid in spared
    ]


def batch_panel(sender, batch, user, **kwargs):
    """The retention summary on a bulk deletion's page (``deletion.signals.batch_page``)."""
    run = runs.run_of_batch(batch.pk)
    if run is None or not manages(user, run.endpoint):
        return None
    return "retention/_batch_panel.html", {"run": run, **summary(run)}


def _rule_or_404(ep, pk) -> RetentionRule:
    rule = runs.rules_of(ep).filter(pk=pk).select_related("updated_by").first()
    if rule is None:
        raise Http404("No such retention rule on this endpoint.")
    return rule


def _rule_url(rule: RetentionRule) -> str:
    return reverse("retention_rule", kwargs={"endpoint": rule.endpoint, "rule": rule.pk})


def _version(rule: RetentionRule, user) -> None:
    RuleVersion.objects.create(
        rule=rule,
        number=rule.version,
        name=rule.name,
        query=rule.query,
        age_days=rule.age_days,
        active=rule.active,
        changed_by_name=user.get_username(),
    )


def _audit(user, endpoint: str, capability: str, **evidence) -> None:
    trail.record(
        user, capability=capability, endpoint=endpoint, outcome=Outcome.SUCCESS, evidence=evidence
    )
