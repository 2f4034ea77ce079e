"""The dashboard's processes: uvicorn workers, the index refresher and the task workers,
started and stopped together.

``manage.py serve`` (production) and the demo command (``make run``) both run
uvicorn, one ``index_refresher`` process and task workers (``task_worker``:
``HERMES_UI_TASK_WORKERS`` under serve, one for the demo) as children and stop
all of them when any one exits, on Ctrl-C or on SIGTERM. A SIGTERM lets
requests in flight finish within a grace period, and then exits 0.
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


def uvicorn_argv(host: str, port: int, workers: int = 1, grace: int | None = None) -> list[str]:
    # The access log is off because URLs can carry search text. X-Forwarded-For
    # is believed from HERMES_UI_TRUSTED_PROXIES only: the client address it
    # gives is what the login limits count (see README, Security).
    argv = [sys.executable, "-m", "uvicorn", "hermes_ui.asgi:application"]
    argv += ["--host", host, "--port", str(port), "--no-access-log"]
    trusted = ",".join(settings.HERMES_UI_TRUSTED_PROXIES)
    argv += ["--proxy-headers", "--forwarded-allow-ips", trusted]
    # On SIGTERM requests already begun get this long to finish (see supervise).
    grace = settings.HERMES_UI_SHUTDOWN_GRACE_SECONDS if grace is None else grace
    argv += ["--timeout-graceful-shutdown", str(grace)]
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


# Beyond the grace period uvicorn cancels what still runs; this much more is
# left for its own shutdown before a child that has not exited is killed.
KILL_MARGIN = 5.0
CLEAN_STOP = {0, -signal.SIGTERM, -signal.SIGINT}


def supervise(
    argvs: list[list[str]],
    env: dict,
    started: Callable[[Callable[[], bool]], None] | None = None,
    grace: float | None = None,
) -> int:
    """Run the commands; when one exits (or we are told to stop), stop the others.

    ``started``, if given, is called once the children run, with a function
    that says whether they all still do and no stop was asked for: the demo
    waits with it for the first index sync before printing its banner. Ctrl-C
    or SIGTERM while it runs stops everything as usual.

    Stopping sends each child SIGTERM and waits ``grace`` seconds
    (HERMES_UI_SHUTDOWN_GRACE_SECONDS) plus ``KILL_MARGIN`` for it to exit;
    uvicorn meanwhile finishes the requests it has begun (``uvicorn_argv``
    gives it the same grace). Returns 0 when we were told to stop and every
    child stopped cleanly (uvicorn re-raises the SIGTERM it caught, so "killed
    by SIGTERM" is clean too): a process manager sees no failure. A child that
    exited by itself, failed while stopping, or had to be killed gives a
    non-zero code.
    """
    grace = settings.HERMES_UI_SHUTDOWN_GRACE_SECONDS if grace is None else grace
    children = [subprocess.Popen(argv, env=env) for argv in argvs]
    stopping: list[int] = []
    # Kept until every child is gone: a second SIGTERM during the grace
    # period must not kill this process and orphan its children.
    previous = signal.signal(signal.SIGTERM, lambda *_: stopping.append(signal.SIGTERM))

    def running() -> bool:
        return not stopping and all(child.poll() is None for child in children)

    exited_first: list[subprocess.Popen] = []
    killed: list[subprocess.Popen] = []
    try:
        if started is not None:
            started(running)
        while running():
            time.sleep(0.2)
    except KeyboardInterrupt:
        stopping.append(signal.SIGINT)
    finally:
        exited_first = [child for child in children if child.poll() is not None]
        for child in children:
            if child.poll() is None:
                child.terminate()
        killed = _wait_or_kill(children, grace + KILL_MARGIN)
        signal.signal(signal.SIGTERM, previous)
    return _exit_code(children, exited_first, killed, grace, asked=bool(stopping))


def _wait_or_kill(children: list[subprocess.Popen], seconds: float) -> list[subprocess.Popen]:
    deadline = time.monotonic() + seconds
    killed = []
    for child in children:
        while True:
            try:
                child.wait(max(0.0, deadline - time.monotonic()))
                break
            except subprocess.TimeoutExpired:
                child.kill()
                child.wait(5)
                killed.append(child)
                break
            except KeyboardInterrupt:
                continue  # a second Ctrl-C: the grace period still applies
    return killed


def _exit_code(children, exited_first, killed, grace: float, *, asked: bool) -> int:
    for child in exited_first:
        # A child that ended by itself: that is what the process manager must see. Unless
        # we were told to stop and it stopped cleanly: a process manager that signals the
        # whole group (systemd's default, Ctrl-C) reaches the children first.
        if child.returncode and not (asked and child.returncode in CLEAN_STOP):
            return _shell_code(child.returncode)
    if killed:
        print(
            f"{len(killed)} process(es) did not stop within {grace:g} s of SIGTERM "
            "and were killed.",
            file=sys.stderr,
        )
        return 1
    for child in children:
        if child.returncode not in CLEAN_STOP:
            return _shell_code(child.returncode)
    return 0


def _shell_code(returncode: int) -> int:
    """A child killed by signal N (``-N``) exits the way a shell reports it: 128 + N."""
    return 128 - returncode if returncode < 0 else returncode
