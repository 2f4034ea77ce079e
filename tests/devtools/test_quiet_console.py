"""``make run``'s console (the demo command): the URL and the logins are its last lines,
and while background rounds go well nothing follows them; what needs a person (a task
worker that died) still shows."""

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from devtools.peer.launcher import free_port
from tests.platform.test_shutdown import children, cmdline
from tests.support.browser import template_database
from tests.support.waiting import until

ROOT = Path(__file__).resolve().parents[2]
BANNER_END = "Press Ctrl-C to stop; the demo peer stops with it."

pytestmark = pytest.mark.peer


class Console:
    """The command's merged output, read line by line on a thread."""

    def __init__(self, process: subprocess.Popen):
        self.lines: list[str] = []
        self.thread = threading.Thread(target=self._read, args=(process,), daemon=True)
        self.thread.start()

    def _read(self, process):
        for line in process.stdout:
            self.lines.append(line.rstrip("\n"))

    def after_banner(self) -> list[str] | None:
        lines = list(self.lines)
        return lines[lines.index(BANNER_END) + 1 :] if BANNER_END in lines else None


def rounds(database: Path) -> tuple[set, int]:
    """The index syncs recorded (their times) and the tasks that ran successfully."""
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5) as db:
        syncs = {row[0] for row in db.execute("SELECT last_sync_at FROM index_indexsyncstate")}
        (tasks,) = db.execute(
            "SELECT count(*) FROM django_tasks_database_dbtaskresult WHERE status = 'SUCCESSFUL'"
        ).fetchone()
    return syncs, tasks


def test_after_the_banner_the_console_stays_quiet_until_something_needs_a_person(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DJANGO_", "HERMES_"))}
    # Rounds far more often than by default: a minute's worth of them in a few seconds.
    env.update(
        HERMES_UI_DATA_DIR=str(tmp_path / "data"),
        HERMES_INDEX_REFRESH_SECONDS="1",
        HERMES_UI_ROUND_SECONDS="0.5",
        HERMES_UI_ENDPOINT_WATCH_SECONDS="1",
    )
    # From a copy of the run's migrated database (a later ``make run``): its migrations
    # and the accounts it holds are made once per run.
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    shutil.copyfile(template_database(env), data / "hermes_ui.sqlite3")
    port = free_port()
    demo = subprocess.Popen(
        [sys.executable, "manage.py", "demo", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    console = Console(demo)
    try:
        until(
            lambda: console.after_banner() is not None or demo.poll() is not None, 180, "no banner"
        )
        assert demo.poll() is None, "\n".join(console.lines)
        before = "\n".join(console.lines[: console.lines.index(BANNER_END)])
        assert "lifespan" not in before  # uvicorn runs with --lifespan off
        assert f"Hermes UI: http://127.0.0.1:{port}/" in before
        database = data / "hermes_ui.sqlite3"
        first, tasks = rounds(database)
        seen = set(first)

        # Three more index syncs and a dozen more successful tasks have run (rows say so).
        def ran():
            syncs, now_tasks = rounds(database)
            seen.update(syncs)
            return len(seen - first) >= 3 and now_tasks >= tasks + 12

        until(ran, 120, "the background rounds did not run", interval=0.2)
        assert console.after_banner() == [], "\n".join(console.lines)

        # What needs a person still shows: a task worker that dies is restarted, loudly.
        (worker,) = [p for p in children(demo.pid) if "--queue default" in cmdline(p)]
        os.kill(worker, signal.SIGKILL)
        until(
            lambda: any("task_worker" in line and "restarting" in line for line in console.lines),
            60,
            "the restart was not logged",
        )
        shown = console.after_banner()
        assert all(" WARNING " in line or "started" in line for line in shown), shown
    finally:
        demo.send_signal(signal.SIGTERM)
        try:
            demo.wait(60)
        except subprocess.TimeoutExpired:
            demo.kill()
            demo.wait(10)
