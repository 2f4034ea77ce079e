"""The task queue in tests: run it in this process, or start real worker processes.

- ``drain()`` / ``run_ready()``: run every due task in the calling thread (``run_ready``
  inside the test's transaction);
- ``InProcessWorker`` (the ``jobs_db`` fixture): the worker loop on a thread;
- ``WorkerProcess`` (the ``task_worker_process`` fixture): ``manage.py task_worker``,
  or ``db_worker``, as a child process on the test database;
- ``run_scenario``: a bulk close surviving a SIGKILLed worker, on SQLite or PostgreSQL.
"""

from __future__ import annotations

import json
import os
import secrets
import signal
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from unittest import mock
from urllib.parse import quote

from django.db import connections
from django_tasks_db.compat import TaskResultStatus
from django_tasks_db.management.commands import db_worker
from django_tasks_db.models import DBTaskResult

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.background.workers.models import WorkerBeat
from hermes_ui.background.workers.worker import make_worker
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from tests.support.browser import manage_py
from tests.support.waiting import until

REPO = Path(__file__).resolve().parents[2]


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


def run_ready() -> None:
    """``drain()`` in the test's transaction, which closing stale connections would end."""
    with mock.patch.object(db_worker, "close_old_connections", lambda: None):
        drain("in-test")


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
    env.update(extra)
    return env


class WorkerProcess:
    """``manage.py task_worker`` (or ``command``) in a child process; ``kill()`` is a crash."""

    def __init__(self, env: dict, worker_id: str, log: Path | None = None, command="task_worker"):
        self.env = env
        self.worker_id = worker_id
        self.log_path = log
        self.command = command
        self.process: subprocess.Popen | None = None

    def start(self) -> WorkerProcess:
        out = open(self.log_path, "ab") if self.log_path else subprocess.DEVNULL  # noqa: SIM115
        argv = manage_py(self.command)
        if self.command == "db_worker":
            argv += ["--queue-name=*", "--interval=0.05", "--no-startup-delay", "--no-reload"]
        else:
            argv += ["--interval", "0.1"]
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

    def log(self) -> str:
        path = self.log_path
        return path.read_text(errors="replace") if path and path.exists() else ""


# -- restart safety of a bulk close (tests/tasks, tests/scale) --------------------
# It runs wholly in child processes, so the same steps run on SQLite and PostgreSQL.

SESSIONS = 50
STALE_SECONDS = "3"  # how soon the second worker takes over the dead one's task

_ENQUEUE = """
import json, sys
import django
django.setup()
from django.contrib.auth import get_user_model
from hermes_ui.bulk import close_job
from hermes_ui.platform.endpoints import get_endpoint
ids = json.loads(sys.argv[-2])
user = get_user_model().objects.get(username="support")
job = close_job.start(get_endpoint("local"), user, ids, "resolved", sys.argv[-1])
print(job.pk)
"""


def manage(env: dict, *args: str) -> str:
    done = subprocess.run(
        manage_py(*args),
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout


def enqueue(env: dict, ids: list[str]) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _ENQUEUE, json.dumps(ids), mint_key()],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return int(done.stdout.strip().splitlines()[-1])


def run_scenario(env: dict, query: Callable[[str], list], peer, log_dir: Path) -> None:
    """The bulk close of ``SESSIONS`` sessions, its worker SIGKILLed half-way and a second
    one resuming it. ``env``'s database is migrated and holds the user ``support`` (a
    copy of a migrated template: migrating again cost the test seconds of CPU)."""
    env = {
        **env,
        "HERMES_API_URL": peer.base_url,
        "HERMES_API_KEY": peer.key,
        "HERMES_ENDPOINT_ID": "local",
        "HERMES_INDEX_REFRESH_SECONDS": "0",
        "HERMES_UI_TASK_STALE_SECONDS": STALE_SECONDS,
        "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
    }
    client = HermesClient(Endpoint("local", peer.base_url, peer.key))
    ids = [f"restart-{secrets.token_hex(4)}" for _ in range(SESSIONS)]
    try:
        for session_id in ids:
            client.create_session(idempotency_key=mint_key(), session_id=session_id)

        job_id = enqueue(_with_django(env), ids)
        # job_id is an int the enqueueing process printed, never outside input.
        job_sql = "SELECT done, state, result FROM jobs_job WHERE id = " + str(int(job_id))  # noqa: S608

        def done():
            return query(job_sql)[0][:2]

        first = WorkerProcess(env, "first-worker", log_dir / "first.log").start()
        try:
            until(lambda: done()[0] >= 10, 120, "the first worker never got going")
        finally:
            first.kill()  # SIGKILL half-way: no clean-up, its heartbeat row stays
        killed_at, state = done()
        assert killed_at < SESSIONS and state == "running", (killed_at, state)

        second = WorkerProcess(env, "second-worker", log_dir / "second.log").start()
        try:
            until(lambda: done()[1] != "running", 180, "the resumed job never ended")
        finally:
            second.stop()

        done_count, state = done()
        assert (state, done_count) == ("done", SESSIONS)
        rows = _json(query(job_sql)[0][2])["rows"]
        assert sorted(r["session_id"] for r in rows) == sorted(ids)  # each once
        assert Counter(r["verdict"] for r in rows) == {"closed": SESSIONS}
        assert all(client.get_session(sid).end_reason == "resolved" for sid in ids)
        # The audit trail: one close per session (a replay is marked as one).
        closes = Counter()
        for session_id, outcome, evidence in query(
            "SELECT session_id, outcome, evidence FROM audit_auditevent "
            "WHERE capability = 'session_patch'"
        ):
            if session_id in ids and outcome == "success" and not _json(evidence).get("replayed"):
                closes[session_id] += 1
        assert closes == dict.fromkeys(ids, 1)
        # The bulk close's task only (migrate also queues the notifications' rounds).
        runs = query(
            "SELECT status, worker_ids FROM django_tasks_database_dbtaskresult "
            "WHERE task_path LIKE '%close_sessions'"
        )
        assert [(status, _json(workers)) for status, workers in runs] == [
            ("SUCCESSFUL", ["first-worker", "second-worker"])
        ]
    finally:
        client.close()


def _json(value):
    return json.loads(value) if isinstance(value, str) else value


def _with_django(env: dict) -> dict:
    return {**env, "PYTHONPATH": str(REPO)}
