"""Retention runs name the sessions they spared: erased with a deleted session
(``platform.erasers``). The run itself stays (counts, rule, batch)."""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.retention.models import RetentionRun


def _holding(scope, ids: list[str]):
    wanted = set(ids)
    for run in RetentionRun.objects.filter(erasers.mine(scope)).exclude(protected=[]):
        kept = [p for p in run.protected if p.get("id") not in wanted]
        if len(kept) != len(run.protected):
            yield run, kept


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"retention_runs": sum(1 for _ in _holding(scope, ids))}


def erase(scope, ids: list[str]) -> dict[str, int]:
    changed = 0
    for run, kept in list(_holding(scope, ids)):
        RetentionRun.objects.filter(pk=run.pk).update(protected=kept)
        changed += 1
    return {"retention_runs": changed}
