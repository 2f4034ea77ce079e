"""``make serve`` outlives its dependencies, as an operator sees it.

The whole production set (two uvicorn workers, the periodic worker and a task
worker, under ``manage.py serve``) runs on its own PostgreSQL and Redis. The
test stops PostgreSQL for longer than the pool's wait, twice, and SIGKILLs
the task worker; nothing is restarted by hand. Each outage must show as a
prompt 503 and a not-ready ``/readyz``, recover within 15 s, and leave a
handful of log lines, not one per request.
"""

from __future__ import annotations

import os
import signal
import subprocess
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import httpx
import psycopg
import pytest
from django_tasks_db.models import DBTaskResult

from devtools.peer.launcher import free_port
from devtools.services import Postgres
from hermes_ui.index.models import IndexSyncState
from tests.platform.test_shutdown import children, cmdline
from tests.scale.conftest import Shell, logged_in, restore
from tests.support.waiting import until

REPO = Path(__file__).resolve().parents[2]
OUTAGE = 6.0  # longer than the pool's wait (HERMES_UI_DB_WAIT_SECONDS=2)
RECOVERY = 15.0
PAGES = ["/e/local/sessions/?view=all", "/e/local/sessions/"]
# What one outage may write to the log: a WARNING and an INFO from each of the four
# processes that noticed it, and a little room.
LINES_PER_OUTAGE = 12


class Served:
    """``make serve`` with its output collected line by line."""

    def __init__(self, env: dict, port: int):
        self.port, self.env = port, env
        self.base_url = f"http://127.0.0.1:{port}"
        self.lines: list[str] = []
        self.proc = subprocess.Popen(
            ["make", "--no-print-directory", "serve", f"PORT={port}"],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def serve_pid(self) -> int:
        (pid,) = [p for p in children(self.proc.pid) if "manage.py serve" in cmdline(p)]
        return pid

    def processes(self) -> dict[int, str]:
        """Every process under ``serve``, uvicorn's workers included: pid -> command line."""
        found, todo = {}, [self.serve_pid()]
        while todo:
            for child in children(todo.pop()):
                found[child] = cmdline(child)
                todo.append(child)
        return found

    def task_workers(self) -> set[int]:
        """The workers of the jobs' queue (the periodic worker runs the schedule)."""
        return {
            pid
            for pid, cmd in self.processes().items()
            if "task_worker" in cmd and "--queue default" in cmd
        }

    def stop(self) -> int:
        if self.proc.poll() is None:
            os.kill(self.serve_pid(), signal.SIGTERM)  # as a process manager stops it
        try:
            return self.proc.wait(40)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.proc.wait(10)


@pytest.fixture
def served(backends, migrated_dump, hermes_peer, tmp_path):
    with Postgres() as postgres:
        port = free_port()
        env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
        env.update(
            DATABASE_URL=postgres.url,
            REDIS_URL=backends["REDIS_URL"],
            HERMES_UI_DATA_DIR=str(tmp_path),
            HERMES_API_URL=hermes_peer.base_url,
            HERMES_API_KEY=hermes_peer.key,
            HERMES_ENDPOINT_ID="local",
            HERMES_INDEX_REFRESH_SECONDS="2",
            HERMES_UI_TASK_WORKERS="1",
            HERMES_UI_SHUTDOWN_GRACE_SECONDS="1",
            WEB_CONCURRENCY="2",
            PYTHONUNBUFFERED="1",
        )
        # Migrated, with the users (serve's own migrate then finds nothing to do; the
        # first start on an empty database is tests/platform/test_shutdown.py's).
        restore(migrated_dump, postgres.url)
        server = Served(env, port)
        try:
            until(lambda: _status(server, "/healthz") == 200, 120, "make serve never answered")
            yield SimpleNamespace(server=server, postgres=postgres)
        finally:
            code = server.stop()
            print("\n".join(server.lines[-60:]))
            assert code == 0, "\n".join(server.lines[-60:])


def _routine(line: str) -> bool:
    """An INFO line of the log format (``2026-12-06 02:52:56,441 INFO name message``)."""
    parts = line.split(" ", 3)
    return len(parts) == 4 and parts[0][:2] == "20" and parts[2] == "INFO"


def _status(server, path: str, client: httpx.Client | None = None) -> int | None:
    try:
        return (client or httpx).get(server.base_url + path, timeout=10).status_code
    except httpx.HTTPError:
        return None


def _sql(postgres, query: str, *args):
    with psycopg.connect(postgres.url) as conn:
        return conn.execute(query, args).fetchall()


def _enqueue(shell: Shell) -> str:
    """A task through the dashboard's own queue (the review rules of an unknown endpoint
    identity: a quick no-op), from a separate process as a page would (one that lives
    through the outages, as the dashboard's own processes do)."""
    script = (
        "from hermes_ui.review.rules_task import run_rules;"
        "print(run_rules.enqueue('local', 'not-configured').id)"
    )
    return shell.run(script).strip().splitlines()[-1]


def _task_done(postgres, task_id: str) -> bool:
    table = DBTaskResult._meta.db_table
    rows = _sql(postgres, f"SELECT status FROM {table} WHERE id = %s", task_id)  # noqa: S608
    return bool(rows) and rows[0][0] == "SUCCESSFUL"


def _last_sync(postgres):
    table = IndexSyncState._meta.db_table
    return _sql(postgres, f"SELECT max(last_sync_at) FROM {table}")[0][0]  # noqa: S608


def _outage(server, postgres, browser: httpx.Client, shell: Shell) -> dict:
    """PostgreSQL away for ``OUTAGE`` seconds, then back: what was seen and how fast."""
    before = len(server.lines)
    synced = _last_sync(postgres)
    assert synced is not None
    postgres.halt()
    halted = time.monotonic()
    slowest = 0.0
    while time.monotonic() < halted + OUTAGE:
        began = time.monotonic()
        answer = browser.get(PAGES[0])
        slowest = max(slowest, time.monotonic() - began)
        assert answer.status_code == 503 and "database is unreachable" in answer.text
        time.sleep(0.5)
    assert slowest < 5.0
    ready = httpx.get(server.base_url + "/readyz", timeout=10)
    assert ready.status_code == 503 and "database" in ready.text
    pids = server.processes()

    postgres.restart()
    back = time.monotonic()
    task_id = _enqueue(shell)  # the worker is still waiting out the outage
    until(lambda: all(browser.get(p).status_code == 200 for p in PAGES), RECOVERY, "pages")
    until(lambda: _status(server, "/readyz") == 200, RECOVERY, "/readyz")
    until(lambda: _task_done(postgres, task_id), RECOVERY, "the task worker never resumed")
    until(lambda: (_last_sync(postgres) or synced) > synced, RECOVERY, "the periodic sync")
    recovered = time.monotonic() - back
    assert server.processes().keys() == pids.keys()  # nothing was restarted
    # Give each process the time to notice the end of the outage and say so.
    time.sleep(1.0)
    log = server.lines[before:]
    return {"recovered": recovered, "log": log, "slowest": slowest}


@pytest.mark.peer
@pytest.mark.scale
def test_make_serve_rides_out_postgresql_outages_and_a_killed_task_worker(served, tmp_path):
    server, postgres = served.server, served.postgres
    env = {**server.env, "DJANGO_SETTINGS_MODULE": "hermes_ui.settings"}
    with Shell(env, tmp_path / "shell.log") as shell:
        _ride_out(server, postgres, shell)


def _ride_out(server, postgres, shell: Shell) -> None:
    browser = logged_in(SimpleNamespace(base_url=server.base_url))
    until(lambda: _last_sync(postgres) is not None, 60, "the periodic worker's first sync")
    assert all(browser.get(p).status_code == 200 for p in PAGES)

    for n in range(2):  # the check holds twice in a row
        seen = _outage(server, postgres, browser, shell)
        log = seen["log"]
        # Every line but a routine INFO one: warnings, errors, stacks.
        loud = [line for line in log if not _routine(line)]
        assert len(loud) <= LINES_PER_OUTAGE, "\n".join(loud)
        assert not [line for line in log if "Traceback" in line or " ERROR " in line], log
        assert any("database unreachable" in line and "WARNING" in line for line in log), log
        assert any("database is back after" in line and "INFO" in line for line in log), log
        print(
            f"SERVE outage {n + 1}: slowest 503 {seen['slowest']:.1f}s,"
            f" all recovered {seen['recovered']:.1f}s after the restart,"
            f" {len(loud)} warning lines, {len(log) - len(loud)} info lines"
        )

    (worker,) = server.task_workers()
    os.kill(worker, signal.SIGKILL)
    until(lambda: server.task_workers() - {worker}, RECOVERY, "the task worker was not restarted")
    task_id = _enqueue(shell)
    until(lambda: _task_done(postgres, task_id), RECOVERY, "the new task worker runs no task")
    assert any("restarting it in" in line for line in server.lines), server.lines[-20:]
    assert all(browser.get(p).status_code == 200 for p in PAGES)
