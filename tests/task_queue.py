"""The django-tasks queue in tests: run what is ready in this process, or a real worker.

``run_ready()`` runs every task that is due, in this process and in the
test's transaction, until none is left (the worker's own loop in ``--batch``
mode): for tests where the queue is not what is tested. ``TaskWorker`` is
``manage.py db_worker`` as a process of its own on the test database (the
test needs ``transactional_db``): for retries, backoff and restarts.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from unittest import mock

from django.conf import settings
from django.db import connection
from django_tasks_db.management.commands import db_worker
from django_tasks_db.management.commands.db_worker import Worker

ROOT = Path(__file__).resolve().parent.parent


def run_ready() -> None:
    # The worker closes stale connections between tasks; here the connection holds the
    # test's transaction, so it stays open.
    with mock.patch.object(db_worker, "close_old_connections", lambda: None):
        _worker().run()


def _worker() -> Worker:
    return Worker(
        queue_names=["*"],
        interval=0,
        batch=True,
        backend_name="default",
        startup_delay=False,
        max_tasks=None,
        worker_id="in-test",
        excluded_queue_names=[],
    )


def _database_env() -> dict[str, str]:
    """The test database, as the worker's settings read it (SQLite file or DATABASE_URL)."""
    db = connection.settings_dict
    if connection.vendor == "sqlite":
        return {"HERMES_UI_DB": str(db["NAME"])}
    auth = db["USER"] + (f":{db['PASSWORD']}" if db.get("PASSWORD") else "")
    return {"DATABASE_URL": f"postgres://{auth}@{db['HOST']}:{db['PORT']}/{db['NAME']}"}


class TaskWorker:
    """``manage.py db_worker`` on the test database, with ``env`` added to its environment."""

    def __init__(self, log_dir: Path, **env: str):
        self.env = {
            **os.environ,
            "HERMES_UI_DATA_DIR": str(settings.DATA_DIR),
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            **_database_env(),
            **env,
        }
        self.log_path = log_dir / "worker.log"
        self.process: subprocess.Popen | None = None
        self.starts = 0

    def start(self) -> TaskWorker:
        self.starts += 1
        log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "db_worker",
                "--queue-name=*",
                "--interval=0.05",
                "--no-startup-delay",
                "--no-reload",
                f"--worker-id=test-{os.getpid()}-{self.starts}",
            ],
            cwd=ROOT,
            env=self.env,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        return self

    def kill(self) -> None:
        """SIGKILL: no clean-up, as a crash or an OOM kill would leave it."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(10)

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.kill()

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
