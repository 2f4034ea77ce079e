"""Benchmark of the task queue: what enqueueing adds to a request, and the claim's plan.

``python manage.py bench --only tasks`` runs a child process per database (a
scratch SQLite file, then a throwaway PostgreSQL cluster): each migrates,
times ``task.enqueue`` (the one write a request that starts a job adds), fills
the queue table with 20,000 finished and 1,000 ready rows, and prints the
query plan of the worker's claim query (django-tasks-db's own queryset).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROUNDS = 300
FINISHED, READY = 20_000, 1_000


def run(stdout) -> None:
    from devtools.services import Postgres

    with tempfile.TemporaryDirectory(prefix="hermes-bench-tasks-") as scratch:
        _child(stdout, {"HERMES_UI_DATA_DIR": str(Path(scratch) / "sqlite")}, "SQLite")
        with Postgres() as pg:
            env = {"HERMES_UI_DATA_DIR": str(Path(scratch) / "pg"), "DATABASE_URL": pg.url}
            _child(stdout, env, "PostgreSQL")


def _child(stdout, extra: dict, label: str) -> None:
    env = {k: v for k, v in os.environ.items() if k not in {"DATABASE_URL", "REDIS_URL"}}
    env.update(DJANGO_SETTINGS_MODULE="hermes_ui.settings", HERMES_UI_LOG_LEVEL="WARNING", **extra)
    Path(extra["HERMES_UI_DATA_DIR"]).mkdir(parents=True, exist_ok=True)
    stdout.write(f"-- {label}")
    done = subprocess.run(
        [sys.executable, "-m", "devtools.bench.tasks"],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    stdout.write(done.stdout.rstrip() or done.stderr[-3000:])


def _measure() -> None:
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection, transaction
    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from hermes_ui.background.jobs.models import Job
    from hermes_ui.review import rules_task

    call_command("migrate", verbosity=0)
    task = rules_task.run_rules
    task.enqueue("bench", "0" * 16)  # warm: the connection, the backend
    samples: dict[str, list[float]] = {"enqueue": [], "job row": [], "round trip": []}

    def timed(name, action) -> None:
        started = time.perf_counter()
        action()
        samples[name].append((time.perf_counter() - started) * 1000)

    ids = [f"bench-{i:04d}" for i in range(50)]
    for _ in range(ROUNDS):
        # As ``jobs.runner.submit`` does: the task row in the job's own transaction, so
        # what the request adds is one INSERT (the job row and the commit were there
        # before). The three are interleaved, so a busy machine slows each alike.
        with transaction.atomic():
            timed("job row", lambda: Job.objects.create(kind="bench", params={"ids": ids}))
            timed("enqueue", lambda: task.enqueue("bench", "0" * 16))
            timed("round trip", lambda: connection.cursor().execute("SELECT 1"))
    words = {
        "enqueue": "enqueue (what a job's request adds)",
        "job row": "the job row it already wrote",
        "round trip": "SELECT 1 (the floor)",
    }
    for name, values in samples.items():
        values.sort()
        print(
            f"{words[name]}: median {statistics.median(values):.2f} ms, "
            f"p95 {values[int(len(values) * 0.95)]:.2f} ms over {ROUNDS}"
        )
    print("limit for enqueue: 2 ms")
    DBTaskResult.objects.all().delete()
    now = timezone.now()
    rows = [
        DBTaskResult(
            status="SUCCESSFUL" if i < FINISHED else "READY",
            args_kwargs={"args": ["bench", "0" * 16], "kwargs": {}},
            task_path=task.module_path,
            backend_name="default",
            run_after=now,
            finished_at=now if i < FINISHED else None,
        )
        for i in range(FINISHED + READY)
    ]
    DBTaskResult.objects.bulk_create(rows, batch_size=1000)
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    # The worker's claim, as django-tasks-db's Worker.run builds it.
    claim = DBTaskResult.objects.ready().filter(backend_name="default")
    with transaction.atomic():
        plan = claim.select_for_update(skip_locked=True)[:1].explain()
    print(f"claim query plan ({FINISHED:,} finished + {READY:,} ready rows):")
    print("  " + plan.replace("\n", "\n  "))
    running = DBTaskResult.objects.filter(status="RUNNING").values_list("id")
    print("recovery query plan (RUNNING tasks):")
    print("  " + running.explain().replace("\n", "\n  "))


if __name__ == "__main__":
    _measure()
