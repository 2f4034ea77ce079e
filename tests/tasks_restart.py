"""Restart safety of a bulk close, on whichever database a test hands over.

The scenario runs wholly in child processes (``manage.py`` and task workers) so the
same steps run on SQLite and on PostgreSQL: 50 new sessions on the real peer, a
bulk close of them enqueued, the worker SIGKILLed half-way, a second worker
started. The caller's ``query(sql)`` reads the dashboard's tables directly.
"""

from __future__ import annotations

import json
import secrets
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from tests.browser import prepare_script
from tests.tasks_worker import REPO, WorkerProcess
from tests.waiting import until

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
        [sys.executable, str(REPO / "manage.py"), *args],
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
    env = {
        **env,
        "HERMES_API_URL": peer.base_url,
        "HERMES_API_KEY": peer.key,
        "HERMES_ENDPOINT_ID": "local",
        "HERMES_INDEX_REFRESH_SECONDS": "0",
        "HERMES_UI_TASK_STALE_SECONDS": STALE_SECONDS,
        "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
    }
    manage(env, "shell", "-c", prepare_script({"support": "support"}, "x" * 20))
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
