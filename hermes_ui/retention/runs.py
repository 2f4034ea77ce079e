"""Runs: a rule's proposal filed as one deletion batch that a second admin reviews."""

from __future__ import annotations

import logging
from datetime import timedelta

from django.db import close_old_connections, transaction
from django.utils import timezone

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.deletion import approval
from hermes_ui.deletion import batch as deletion_batch
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.hermes import HermesError
from hermes_ui.platform.endpoints import Endpoint, get_endpoint
from hermes_ui.platform.outages import log_failure
from hermes_ui.retention import evaluate
from hermes_ui.retention.models import RetentionRule, RetentionRun
from hermes_ui.web.roles import ADMIN, role_of

log = logging.getLogger("hermes_ui.retention")

EVERY = timedelta(days=1)


class RunRefused(Exception):
    """A run that cannot be filed, with the reason in words."""


def reason_text(rule: RetentionRule) -> str:
    return (
        f"Retention rule “{rule.name}” (version {rule.version}): "
        f"last active more than {rule.age_days} days ago, matching {rule.query}"
    )


def rules_of(ep: Endpoint):
    return RetentionRule.objects.filter(endpoint=ep.id, endpoint_fp__in=[ep.fingerprint, ""])


def file(ep: Endpoint, rule: RetentionRule, presser=None) -> RetentionRun:
    """Evaluate ``rule`` now and file its batch (none when nothing is proposed).

    The admin who pressed "File a batch now" (``presser``) requests the batch;
    the daily run files it for the rule's last editor. Either way the rule's
    last editor chose what it matches, so neither may approve it. Raises
    ``RunRefused`` when nobody may file it, ``HermesError`` when Hermes cannot be
    read (nothing is recorded then)."""
    requester = presser or rule.updated_by
    if requester is None or not requester.is_active or role_of(requester) != ADMIN:
        raise RunRefused(
            "The admin who last changed this rule is no longer an active admin; "
            "another admin must save the rule again to take it over."
        )
    found = evaluate.evaluate(ep, rule)
    batch = None
    if found.proposed_ids:
        batch = deletion_batch.create(
            ep, found.proposed_ids, requester, reason_text(rule), selected_by=rule.updated_by
        )
    with transaction.atomic():
        run = RetentionRun.objects.create(
            rule=rule,
            rule_version=rule.version,
            **ep.scope(),
            batch_id=batch.pk if batch else None,
            proposed=len(found.proposed_ids),
            matched=found.matched,
            protected=[{"id": p["id"], "why": p["why"]} for p in found.protected],
        )
        RetentionRule.objects.filter(pk=rule.pk).update(last_run_at=timezone.now())
    superseded = supersede(rule, run)
    trail.record(
        requester,
        capability="retention.run",
        endpoint=ep.id,
        outcome=Outcome.SUCCESS,
        evidence={
            "id": rule.pk,
            "version": rule.version,
            "run": run.pk,
            "batch": run.batch_id,
            "count": run.proposed,
            "protected": len(run.protected),
            "superseded": superseded,
            "editor": rule.updated_by.get_username() if rule.updated_by else "",
        },
    )
    return run


def supersede(rule: RetentionRule, newer: RetentionRun) -> int:
    """Void what earlier runs of ``rule`` still have waiting; how many requests were voided."""
    voided = 0
    older = rule.runs.filter(superseded_at__isnull=True).exclude(pk=newer.pk)
    for run in older:
        if run.batch_id:
            note = (
                f"Superseded by retention run #{newer.pk} of the same rule: "
                "a stale proposal is never executed. Nothing was deleted."
            )
            waiting = DeletionRequest.objects.filter(
                batch_id=run.batch_id, status__in=(Status.PENDING, Status.APPROVED)
            )
            for member in waiting:
                approval.void(member, None, "superseded", note)
                voided += 1
        RetentionRun.objects.filter(pk=run.pk).update(
            superseded_at=timezone.now(), superseded_by=newer
        )
    return voided


def run_of_batch(batch_id: int | None) -> RetentionRun | None:
    if not batch_id:
        return None
    return RetentionRun.objects.filter(batch_id=batch_id).select_related("rule").first()


def hold(sender, request: DeletionRequest, **kwargs) -> str | None:
    """Why a retention batch's member must not be deleted now (``deletion.signals.holding``)."""
    run = run_of_batch(request.batch_id)
    if run is None:
        return None
    if run.superseded_at is not None:
        return f"Superseded by retention run #{run.superseded_by_id}. Nothing was deleted."
    ep = get_endpoint(request.endpoint)
    since = timezone.now() - timedelta(days=run.rule.age_days)
    why = evaluate.direct_protection(ep, [request.session_id], since)
    if request.session_id in why:
        code = why[request.session_id]
        return (
            f"Protected since retention run #{run.pk} filed it: {evaluate.WHY[code]}. "
            "It was skipped; nothing was deleted."
        )
    return None


def due(rule: RetentionRule, now=None) -> bool:
    now = now or timezone.now()
    return rule.active and (rule.last_run_at is None or now - rule.last_run_at >= EVERY)


def run_due(ep: Endpoint) -> int:
    """File a run for every active rule of ``ep`` that has not run for a day."""
    filed = 0
    for rule in rules_of(ep).filter(active=True).select_related("updated_by"):
        if not due(rule):
            continue
        try:
            file(ep, rule)
            filed += 1
        except (RunRefused, HermesError) as error:
            log.warning(
                "retention rule=%s not run: %s",
                rule.pk,
                getattr(error, "code", type(error).__name__),
            )
            RetentionRule.objects.filter(pk=rule.pk).update(last_run_at=timezone.now())
    return filed


def run_due_quietly(ep: Endpoint) -> None:
    """``run_due`` for the background worker: failures are logged, never raised."""
    close_old_connections()
    try:
        run_due(ep)
    except Exception:
        log_failure(log, "retention rules of endpoint=%s failed", ep.id)


def batch_of(run: RetentionRun) -> DeletionBatch | None:
    return DeletionBatch.objects.filter(pk=run.batch_id).first() if run.batch_id else None
