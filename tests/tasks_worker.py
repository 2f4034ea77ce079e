"""Running the task queue in tests: in this process, or as a real worker process.

- ``drain()``: run every queued task in the calling thread until the queue is
  empty (tests that are not about the worker; the test's Hermes transport applies).
- ``InProcessWorker`` (the ``jobs_db`` fixture): django-tasks-db's worker loop on
  a thread of the test process, so a test can watch a job run (a gate holding
  Hermes' answers) while it polls the progress page. A job carries the
  transport of the thread that submitted it (``hermes_ui.background.jobs.runner``).
- ``WorkerProcess`` (the ``task_worker_process`` fixture): ``manage.py task_worker``
  as a child process on the test database (a real heartbeat, a real SIGKILL).

The fixtures live in ``tests/conftest.py``; all need committed rows
(``transactional_db``), since the worker reads them on its own connection.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import quote

from django.db import connections
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.models import DBTaskResult

from hermes_ui.background.workers.models import WorkerBeat
from hermes_ui.background.workers.worker import make_worker
from tests.waiting import until

REPO = Path(__file__).resolve().parent.parent


def pending() -> int:
    """Tasks running, or queued and due (the framework's own ``ready()``): a round that
    scheduled its next run for later (the notifications' digests, the webhooks' sweep)
    is not work left undone."""
    return (
        DBTaskResult.objects.ready().count()
        + DBTaskResult.objects.filter(status=TaskResultStatus.RUNNING).count()
    )


def rounds() -> set[str]:
    """The task path of the schedule's rounds (tasks that queue their own next run)."""
    from hermes_ui.background import schedule

    return {schedule.run.module_path}


def drain(worker_id: str = "test-drain") -> int:
    """Run queued tasks in this thread until none is ready; how many ran, the platform's
    rounds left out (``rounds()``)."""
    before = set(
        DBTaskResult.objects.exclude(status=TaskResultStatus.READY).values_list("pk", flat=True)
    )
    worker = make_worker(worker_id, interval=0, batch=True)
    worker.run()
    ran = DBTaskResult.objects.exclude(status=TaskResultStatus.READY).exclude(pk__in=before)
    return ran.exclude(task_path__in=rounds()).count()


class InProcessWorker:
    """``with InProcessWorker() as w: ...``: a worker thread; leaving waits for the queue."""

    def __init__(self, worker_id: str = "test-thread", interval: float = 0.05):
        self.worker = make_worker(worker_id, interval=interval)
        self.thread = threading.Thread(target=self._run, name="test-task-worker", daemon=True)
        self.failure: BaseException | None = None

    def _run(self) -> None:
        try:
            self.worker.run()
        except BaseException as error:  # reported by stop()
            self.failure = error
        finally:
            connections.close_all()

    def __enter__(self) -> InProcessWorker:
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        try:
            if exc[0] is None:
                self.wait_idle()
        finally:
            self.stop()

    def wait_idle(self, timeout: float = 60.0) -> None:
        until(lambda: pending() == 0, timeout, "a task was still queued or running")

    def stop(self) -> None:
        self.worker.running = False
        self.thread.join(30)
        assert not self.thread.is_alive(), "the in-process task worker did not stop"
        if self.failure is not None:
            raise self.failure


def worker_env(database: str | None = None, **extra: str) -> dict:
    """The environment of a worker process on the test database: its SQLite file, or
    the test database of the PostgreSQL the suite runs on (``DATABASE_URL``)."""
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env["DJANGO_SETTINGS_MODULE"] = "hermes_ui.settings"
    conn = connections["default"]
    if database is None and conn.vendor == "postgresql":
        db = conn.settings_dict
        auth = db["USER"] + (f":{quote(db['PASSWORD'])}" if db.get("PASSWORD") else "")
        env["DATABASE_URL"] = f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    else:
        env["HERMES_UI_DB"] = database or str(conn.settings_dict["NAME"])
    # The worker serves the periodic queue too: no index sync there unless asked for.
    env["HERMES_INDEX_REFRESH_SECONDS"] = "0"
    env.update(extra)
    return env


class WorkerProcess:
    """``manage.py task_worker`` in a child process; ``kill()`` is a crash (SIGKILL)."""

    def __init__(self, env: dict, worker_id: str, log: Path | None = None):
        self.env = env
        self.worker_id = worker_id
        self.log = log
        self.process: subprocess.Popen | None = None

    def start(self) -> WorkerProcess:
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL  # noqa: SIM115
        argv = [sys.executable, str(REPO / "manage.py"), "task_worker", "--interval", "0.1"]
        self.process = subprocess.Popen(
            [*argv, "--worker-id", self.worker_id],
            env=self.env,
            stdout=out,
            stderr=subprocess.STDOUT,
            cwd=REPO,
        )
        return self

    def wait_alive(self, timeout: float = 60.0) -> None:
        """Until its heartbeat row exists (read on the test's own connection)."""
        until(
            lambda: self.running and WorkerBeat.objects.filter(worker=self.worker_id).exists(),
            timeout,
            f"task worker {self.worker_id} never wrote its heartbeat",
        )

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def kill(self) -> None:
        """SIGKILL: no clean-up at all, as an OOM kill or a power cut."""
        if self.running:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> int | None:
        if self.running:
            self.process.terminate()
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return None if self.process is None else self.process.returncode
