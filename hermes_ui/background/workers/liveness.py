"""Whether a task worker is alive: a heartbeat row renewed within the stale period."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.utils import timezone

from hermes_ui.background.workers.models import WorkerBeat

# A worker renews its row this often (seconds); the stale period is a setting.
BEAT_SECONDS = 2.0


def stale_after() -> timedelta:
    return timedelta(seconds=settings.HERMES_UI_TASK_STALE_SECONDS)


def alive_ids() -> set[str]:
    cutoff = timezone.now() - stale_after()
    return set(WorkerBeat.objects.filter(beat_at__gte=cutoff).values_list("worker", flat=True))


@dataclass(frozen=True)
class Workers:
    alive: int
    last_beat_at: datetime | None  # the newest beat of any worker, alive or not

    @property
    def words(self) -> str:
        if self.alive:
            return f"{self.alive} alive"
        if self.last_beat_at is None:
            return "none has run yet"
        return "none alive"


def workers() -> Workers:
    cutoff = timezone.now() - stale_after()
    newest = WorkerBeat.objects.order_by("-beat_at").values_list("beat_at", flat=True).first()
    return Workers(WorkerBeat.objects.filter(beat_at__gte=cutoff).count(), newest)
