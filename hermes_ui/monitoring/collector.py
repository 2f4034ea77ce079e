"""The series that live in the database, read when Prometheus scrapes.

Index freshness, the task queue, the task workers' heartbeats and the jobs are
rows every process shares; reading them at scrape time gives one true value
instead of each worker pushing its own guess. A database that does not answer
gives ``hermes_ui_database_up 0`` and none of these series.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.db import DatabaseError
from django.db.models import Count, Max
from django.utils import timezone
from django_tasks_db.models import DBTaskResult
from prometheus_client.core import GaugeMetricFamily

from hermes_ui.background.jobs.models import Job, JobState
from hermes_ui.background.workers.liveness import stale_after
from hermes_ui.background.workers.models import WorkerBeat
from hermes_ui.index.models import IndexSyncState
from hermes_ui.platform.endpoints import all_endpoints

_INDEX = {
    "refresh_age": ("hermes_ui_index_refresh_age_seconds", "Seconds since the last successful "
                    "index sync (+Inf: none yet)."),
    "sweep_age": ("hermes_ui_index_sweep_age_seconds", "Seconds since the last full sweep "
                  "(+Inf: none yet)."),
    "running": ("hermes_ui_index_sync_running", "1 while a sync of the endpoint runs."),
    "pages": ("hermes_ui_index_sync_list_calls", "List calls the running sync has made."),
    "expected": ("hermes_ui_index_sweep_expected_list_calls", "List calls the running sweep "
                 "expects in all (absent when unknown)."),
    "pause": ("hermes_ui_index_list_pause_seconds", "The pause between two list calls "
              "(pacing: grows while Hermes answers slowly)."),
    "p95": ("hermes_ui_index_list_call_p95_seconds", "95th percentile of recent list calls."),
}  # fmt: skip


def _queues() -> list[str]:
    return settings.TASKS["default"].get("QUEUES") or ["default"]  # type: ignore[return-value]


def _age(now, then) -> float:
    return math.inf if then is None else max(0.0, (now - then).total_seconds())


class DatabaseCollector:
    """A prometheus-client collector (``collect`` only, so no describe at registration)."""

    def collect(self):
        up = GaugeMetricFamily("hermes_ui_database_up", "1 when the scrape read the database.")
        try:
            families = [*self._index(), *self._tasks(), *self._jobs()]
        except DatabaseError:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    @staticmethod
    def _index():
        now = timezone.now()
        families = {
            key: GaugeMetricFamily(name, text, labels=["endpoint"])
            for key, (name, text) in _INDEX.items()
        }
        configured = {(ep.id, ep.fingerprint) for ep in all_endpoints()}
        rows = IndexSyncState.objects.filter(endpoint__in={i for i, _ in configured})
        for row in rows:
            if (row.endpoint, row.endpoint_fp) not in configured:
                continue  # an identity this configuration no longer serves
            label = [row.endpoint]
            progress = row.progress if row.running_since else {}
            pace = progress.get("pace") or (row.last_report or {}).get("pace") or {}
            families["refresh_age"].add_metric(label, _age(now, row.last_sync_at))
            families["sweep_age"].add_metric(label, _age(now, row.last_full_at))
            families["running"].add_metric(label, 1 if row.running_since else 0)
            families["pages"].add_metric(label, progress.get("pages", 0))
            if progress.get("expected"):
                families["expected"].add_metric(label, progress["expected"])
            families["pause"].add_metric(label, pace.get("pause_s") or 0.0)
            if pace.get("p95_ms") is not None:
                families["p95"].add_metric(label, pace["p95_ms"] / 1000)
        return families.values()

    @staticmethod
    def _tasks():
        now = timezone.now()
        queued = GaugeMetricFamily(
            "hermes_ui_tasks_queued", "Tasks waiting in the queue.", labels=["queue"]
        )
        # Due tasks only: a round's next run waits for its time without being late.
        ready = DBTaskResult.objects.ready()
        counts = {name: 0 for name in _queues()}  # an empty queue is a 0, not a gap
        for row in ready.values("queue_name").annotate(n=Count("id")).order_by():
            counts[row["queue_name"]] = row["n"]
        for name, n in counts.items():
            queued.add_metric([name], n)
        newest = WorkerBeat.objects.aggregate(at=Max("beat_at"))["at"]
        age = GaugeMetricFamily(
            "hermes_ui_task_worker_heartbeat_age_seconds",
            "Seconds since the freshest task worker heartbeat (+Inf: no worker).",
        )
        age.add_metric([], _age(now, newest))
        alive = GaugeMetricFamily("hermes_ui_task_workers", "Task workers with a fresh heartbeat.")
        alive.add_metric([], WorkerBeat.objects.filter(beat_at__gte=now - stale_after()).count())
        return queued, age, alive

    @staticmethod
    def _jobs():
        jobs = GaugeMetricFamily(
            "hermes_ui_jobs", "Jobs by kind and state (queued, running, interrupted).",
            labels=["kind", "state"],
        )  # fmt: skip
        states = [JobState.QUEUED, JobState.RUNNING, JobState.INTERRUPTED]
        counted = Job.objects.filter(state__in=states).values("kind", "state")
        for row in counted.annotate(n=Count("id")).order_by():
            jobs.add_metric([row["kind"], row["state"]], row["n"])
        return (jobs,)
