"""One row per task worker process, renewed while it runs: the dashboard's proof of life."""

from django.db import models
from django.utils import timezone


class WorkerBeat(models.Model):
    # django-tasks-db's own worker id, as recorded in ``DBTaskResult.worker_ids``.
    worker = models.CharField(max_length=64, primary_key=True)
    host = models.CharField(max_length=255, blank=True)
    pid = models.PositiveIntegerField(default=0)
    started_at = models.DateTimeField(default=timezone.now)
    beat_at = models.DateTimeField(default=timezone.now, db_index=True)

    class Meta:
        ordering = ["-beat_at"]

    def __str__(self):
        return f"task worker {self.worker} on {self.host}:{self.pid}"
