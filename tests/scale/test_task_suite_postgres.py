"""The task tests on PostgreSQL: the same modules in a child pytest whose database is a
fresh one in the suite's throwaway cluster (this process keeps its SQLite database).

The restart test has its own PostgreSQL variant (``test_task_restart.py``).
"""

import os
import secrets
import subprocess
import sys

import psycopg
import pytest

from tests.scale.conftest import bare_template
from tests.support.peers import share_peer
from tests.support.tasks import REPO

pytestmark = [pytest.mark.scale, pytest.mark.peer]

TASK_TESTS = [
    "tests/tasks/test_recovery.py",
    "tests/tasks/test_job_page.py",
    "tests/jobs/test_resume.py",
    "tests/jobs/test_bulk_close_job.py",
    "tests/chat/test_plain_job.py",
]


def test_the_task_tests_pass_on_postgresql(backends, migrated_template, hermes_peer, tmp_path):
    name = f"tasks_suite_{secrets.token_hex(4)}"
    base = backends["DATABASE_URL"].rsplit("/", 1)[0]
    # pytest-django's test database, made ahead as a copy of the migrated database
    # (without the users): --reuse-db keeps it, so the child's migrate finds nothing to
    # do instead of running every migration again.
    with psycopg.connect(
        base.replace("postgres://", "postgresql://") + "/postgres", autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "test_{name}" TEMPLATE "{bare_template(migrated_template)}"')
    # The inner run is one test of the outer one's timeline, not lines of its own.
    left_out = {"REDIS_URL", "DATABASE_URL", "HERMES_UI_TIMELINE"}
    env = {k: v for k, v in os.environ.items() if k not in left_out}
    env.update(DATABASE_URL=f"{base}/{name}", HERMES_UI_DATA_DIR=str(tmp_path))
    # This run's peer rather than one more of the child's own (as in the whole suite,
    # the task tests share the one peer with other tests).
    env.update(share_peer(hermes_peer))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *TASK_TESTS,
            "-q",
            "-p",
            "no:cacheprovider",
            "--reuse-db",
        ],
        env=env,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    print(summary)
    assert " passed" in summary and "failed" not in summary and "error" not in summary
