"""Who starts the task workers: ``make serve`` (HERMES_UI_TASK_WORKERS) and ``make run``."""

import subprocess
import sys

import pytest
from django.core.management import call_command

from hermes_ui.management.commands import serve
from tests.support.tasks import REPO


def test_serve_starts_the_configured_number_of_task_workers(settings, monkeypatch, db):
    settings.HERMES_UI_TASK_WORKERS = 3
    launched = []
    monkeypatch.setattr(serve, "call_command", lambda *a, **k: None)  # no migrate, collectstatic
    monkeypatch.setattr(
        "hermes_ui.platform.serving.supervise", lambda argvs, env: launched.extend(argvs)
    )
    call_command("serve", "--workers", "1")
    workers = [argv for argv in launched if argv[-2:] == ["--queue", "default"]]
    assert len(workers) == 3 and workers[0][1:5] == ["-m", "django", "task_worker", "--skip-checks"]
    assert any("uvicorn" in argv for argv in launched)  # beside the web process
    assert [argv for argv in launched if argv[-2:] == ["--queue", "periodic"]]  # the schedule


def test_serve_with_no_task_workers_starts_none(settings, monkeypatch, db):
    settings.HERMES_UI_TASK_WORKERS = 0
    launched = []
    monkeypatch.setattr(serve, "call_command", lambda *a, **k: None)  # no migrate, collectstatic
    monkeypatch.setattr(
        "hermes_ui.platform.serving.supervise", lambda argvs, env: launched.extend(argvs)
    )
    call_command("serve", "--workers", "1")
    assert launched and not [argv for argv in launched if argv[-2:] == ["--queue", "default"]]


@pytest.mark.parametrize("value", ["two", "-1", "33"])
def test_a_bad_task_worker_count_stops_start_up_naming_the_variable(value, tmp_path):
    done = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "check"],
        env={
            "PATH": "/usr/bin:/bin",
            "HERMES_UI_DATA_DIR": str(tmp_path),
            "HERMES_UI_TASK_WORKERS": value,
        },
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("django.core.exceptions.ImproperlyConfigured: HERMES_UI_TASK_WORKERS")


def test_make_run_starts_one_task_worker_beside_the_web_process(settings, monkeypatch, db):
    from io import StringIO

    from devtools.management.commands import demo
    from hermes_ui.platform import serving

    monkeypatch.setattr(demo, "call_command", lambda *a, **k: None)  # no migrate
    settings.HERMES_INDEX_REFRESH_SECONDS = 0
    monkeypatch.setenv("HERMES_API_URL", "http://127.0.0.1:9")
    monkeypatch.setenv("HERMES_API_KEY", "k" * 24)
    launched = []

    def supervise(argvs, env, started=None):
        launched.extend(argvs)
        started(lambda: False)
        return 0

    monkeypatch.setattr(serving, "supervise", supervise)
    call_command("demo", "--port", "8999", stdout=StringIO())
    assert [argv[1:] for argv in launched if argv[-2:] == ["--queue", "default"]] == [
        ["-m", "django", "task_worker", "--skip-checks", "--queue", "default"]
    ]
    assert any("uvicorn" in argv for argv in launched)
