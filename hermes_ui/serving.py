"""The dashboard's processes: uvicorn workers, the index refresher and the task workers,
started and stopped together.

``manage.py serve`` (production) and the demo command (``make run``) both run
uvicorn, one ``index_refresher`` process and task workers (``task_worker``:
``HERMES_UI_TASK_WORKERS`` under serve, one for the demo) as children and stop
all of them when any one exits, on Ctrl-C or on SIGTERM.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from django.conf import settings
from django.core.management.base import CommandError


def check_workers(workers: int) -> None:
    """More than one worker needs Redis: the in-process chat relay cannot be shared."""
    if workers < 1:
        raise CommandError(f"WEB_CONCURRENCY must be at least 1, got {workers}")
    if workers > 1 and not settings.REDIS_URL:
        raise CommandError(
            f"WEB_CONCURRENCY={workers} needs REDIS_URL. Without Redis the chat relay and the "
            "caches live in one process's memory, so a browser's stream could land on a worker "
            "that knows nothing of its turn. Set REDIS_URL (and DATABASE_URL), or run one worker."
        )


def uvicorn_argv(host: str, port: int, workers: int = 1) -> list[str]:
    # The access log is off because URLs can carry search text. X-Forwarded-For
    # is believed from HERMES_UI_TRUSTED_PROXIES only: the client address it
    # gives is what the login limits count (see README, Security).
    argv = [sys.executable, "-m", "uvicorn", "hermes_ui.asgi:application"]
    argv += ["--host", host, "--port", str(port), "--no-access-log"]
    trusted = ",".join(settings.HERMES_UI_TRUSTED_PROXIES)
    argv += ["--proxy-headers", "--forwarded-allow-ips", trusted]
    return [*argv, "--workers", str(workers)] if workers > 1 else argv


def refresher_argv() -> list[str]:
    """The background worker's command line (index refresh and turn retention).

    It runs even with HERMES_INDEX_REFRESH_SECONDS=0: retention must still apply.
    """
    return [sys.executable, "-m", "django", "index_refresher"]


def task_worker_argvs(count: int) -> list[list[str]]:
    """``count`` task workers (``manage.py task_worker``): they run the background jobs."""
    return [[sys.executable, "-m", "django", "task_worker"] for _ in range(count)]


def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")
    env.update(extra or {})
    return env


def supervise(
    argvs: list[list[str]], env: dict, started: Callable[[Callable[[], bool]], None] | None = None
) -> int:
    """Run the commands; when one exits (or we are told to stop), stop the others.

    ``started``, if given, is called once the children run, with a function
    that says whether they all still do and no stop was asked for: the demo
    waits with it for the first index sync before printing its banner. Ctrl-C
    or SIGTERM while it runs stops everything as usual.
    """
    children = [subprocess.Popen(argv, env=env) for argv in argvs]
    stopping = []
    previous = signal.signal(signal.SIGTERM, lambda *_: stopping.append(True))

    def running() -> bool:
        return not stopping and all(child.poll() is None for child in children)

    try:
        if started is not None:
            started(running)
        while running():
            time.sleep(0.2)
    except KeyboardInterrupt:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
        for child in children:
            if child.poll() is None:
                child.terminate()
        for child in children:
            try:
                child.wait(10)
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(5)
    return next((c.returncode for c in children if c.returncode), 0)
