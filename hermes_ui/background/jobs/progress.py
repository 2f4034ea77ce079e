"""What a job's work reports while it runs, each report one database step."""

from __future__ import annotations

from django.utils import timezone

from hermes_ui.background.jobs.models import Job
from hermes_ui.platform.db_steps import released


class Failed(Exception):
    """The work stopped for a reason the page can show: ``message`` is the dashboard's words."""

    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class Superseded(Exception):
    """Another worker took the job over (this one was taken for dead): stop, write nothing."""


class Progress:
    """The counts and result rows of one running job, written through to its row.

    Only the job's own thread writes them; every write also renews the
    heartbeat, and gives the thread's database connections back (the work's
    own queries since the last step included).
    """

    def __init__(self, job_id: int, extra: dict, total: int = 0, runner: str | None = None):
        self.job_id = job_id
        # The worker running it; its writes land only while the job is still its own.
        self.runner = runner
        self.extra = extra  # everything of the result but the rows
        self.rows: list[dict] = []
        self.done = 0
        self.total = total

    def result(self) -> dict:
        return {**self.extra, "rows": self.rows} if self.rows else dict(self.extra)

    def start(self, total: int) -> None:
        self.total = total
        self._save(total=total)

    def step(self, row: dict | None = None) -> None:
        """One more item done (with its row of the results table, if it has one)."""
        self.done += 1
        if row is not None:
            self.rows.append(row)
        self._save()

    def note(self, **fields) -> None:
        """Record something worth showing before the job ends (say, what it has filed)."""
        self.extra.update(fields)
        self._save()

    @released
    def _save(self, **fields) -> None:
        mine = Job.objects.filter(pk=self.job_id)
        if self.runner is not None:
            mine = mine.filter(runner=self.runner)
        updated = mine.update(
            done=self.done, result=self.result(), heartbeat_at=timezone.now(), **fields
        )
        if not updated and self.runner is not None:
            raise Superseded(self.job_id)
