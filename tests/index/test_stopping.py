"""A sync stopped with SIGTERM (a deploy, Ctrl-C) releases its lease at once."""

import os
import shutil
import signal
import sqlite3
import subprocess
from contextlib import closing
from pathlib import Path

import pytest

from tests.support.browser import manage_py, template_database
from tests.support.servers import SlowLists
from tests.support.waiting import until

pytestmark = pytest.mark.peer

REPO = Path(__file__).resolve().parents[2]


def manage(env, *args, **popen):
    return subprocess.Popen(
        manage_py(*args),
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        **popen,
    )


def migrated(env: dict) -> None:
    """The run's migrated SQLite template as this test's database (no migrate of its own)."""
    folder = Path(env["HERMES_UI_DATA_DIR"])
    folder.mkdir(mode=0o700, parents=True)
    shutil.copyfile(template_database(env), folder / "hermes_ui.sqlite3")


def test_a_sigterm_releases_the_lease_and_the_next_sync_runs_at_once(hermes_peer, tmp_path):
    with SlowLists(hermes_peer.base_url, list_delay=1.0) as slow:
        inherited = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        env = {
            **inherited,
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            "HERMES_UI_DATA_DIR": str(tmp_path / "ui"),
            "HERMES_API_URL": slow.url,
            "HERMES_API_KEY": hermes_peer.key,
            "HERMES_ENDPOINT_ID": "local",
        }
        migrated(env)

        first = manage(env, "index_sync", "--full")
        until(lambda: slow.calls, 60, "the sweep never made a list call")
        first.send_signal(signal.SIGTERM)
        out = first.communicate(timeout=30)[0]
        assert first.returncode == 1, out  # "Not synced: local", not killed by the signal
        assert "stopped on request" in out and "the lease is released" in out, out

        slow.list_delay = 0.0
        second = manage(env, "index_sync")
        out = second.communicate(timeout=120)[0]
        assert second.returncode == 0, out
        assert "skipped" not in out and "full sweep" in out, out

        # Where it stopped is on record for the next reader, and the lease is free (read
        # from the file: no Django process of its own for one row).
        database = Path(env["HERMES_UI_DATA_DIR"]) / "hermes_ui.sqlite3"
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=5)) as db:
            state = db.execute(
                "SELECT running_since IS NULL, last_full_at IS NOT NULL"
                " FROM index_indexsyncstate WHERE endpoint = 'local'"
            ).fetchall()
        assert state == [(1, 1)]


def test_a_sigterm_to_the_periodic_worker_ends_its_running_sync_and_frees_the_lease(
    hermes_peer, tmp_path
):
    with SlowLists(hermes_peer.base_url, list_delay=1.0) as slow:
        inherited = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
        env = {
            **inherited,
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
            "HERMES_UI_DATA_DIR": str(tmp_path / "ui"),
            "HERMES_API_URL": slow.url,
            "HERMES_API_KEY": hermes_peer.key,
            "HERMES_ENDPOINT_ID": "local",
        }
        migrated(env)

        worker = manage(env, "task_worker", "--queue", "periodic", "--worker-id", "periodic")
        until(lambda: slow.calls, 60, "the periodic worker never made a list call")
        worker.send_signal(signal.SIGTERM)
        out = worker.communicate(timeout=30)[0]
        assert worker.returncode == 0 and "task worker periodic stopped" in out, out

        slow.list_delay = 0.0
        second = manage(env, "index_sync")
        out = second.communicate(timeout=120)[0]
        assert second.returncode == 0 and "skipped" not in out, out
