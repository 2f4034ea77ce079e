"""The dashboard's processes: uvicorn workers and task workers, supervised together.

``manage.py serve`` and the demo command (``make run``) both run uvicorn, one
task worker for the periodic queue and task workers for the jobs as children.
A child that exits is restarted with back-off; Ctrl-C or SIGTERM stops them
all, letting requests in flight finish within a grace period, then exits 0.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

from django.conf import settings
from django.core.management.base import CommandError

log = logging.getLogger("hermes_ui.serving")


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
    # Django has no lifespan handler: without this, uvicorn warns on every start.
    argv += ["--lifespan", "off"]
    trusted = ",".join(settings.HERMES_UI_TRUSTED_PROXIES)
    argv += ["--proxy-headers", "--forwarded-allow-ips", trusted]
    # On SIGTERM requests already begun get this long to finish (see supervise).
    grace = settings.HERMES_UI_SHUTDOWN_GRACE_SECONDS if grace is None else grace
    argv += ["--timeout-graceful-shutdown", str(grace)]
    return [*argv, "--workers", str(workers)] if workers > 1 else argv


# The command that starts the task workers (serve, demo) has run Django's system
# checks: its children skip them, whose URL check alone loaded every view.
TASK_WORKER = [sys.executable, "-m", "django", "task_worker", "--skip-checks"]


def periodic_worker_argv() -> list[str]:
    """The task worker of the periodic queue: it runs the schedule's rounds.

    It looks at an empty queue twice a second, so a live round is at most that late.
    """
    return [*TASK_WORKER, "--interval", "0.5", "--queue", "periodic"]


def task_worker_argvs(count: int) -> list[list[str]]:
    """``count`` task workers of the default queue: they run the background jobs."""
    return [[*TASK_WORKER, "--queue", "default"]] * count


def child_env(extra: dict | None = None) -> dict:
    env = dict(os.environ)
    env.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")
    env.update(extra or {})
    return env


# Beyond the grace period uvicorn cancels what still runs; this much more is
# left for its own shutdown before a child that has not exited is killed.
KILL_MARGIN = 5.0
CLEAN_STOP = {0, -signal.SIGTERM, -signal.SIGINT}
# A child that exits within STARTUP_SECONDS of its start, QUICK_FAILURES times in a
# row, cannot start (a configuration error): that stops the whole set.
STARTUP_SECONDS = 10.0
QUICK_FAILURES = 5
# The first restart comes after this long, each further one in a row after twice as
# long, up to MAX_BACKOFF.
FIRST_BACKOFF = 0.5
MAX_BACKOFF = 30.0


class Child:
    """One supervised command: its current process, restarted with back-off when it exits."""

    def __init__(self, argv: list[str], env: dict):
        self.argv, self.env = argv, env
        self.name = _name(argv)
        self.quick_failures = 0
        self.restart_at: float | None = None
        self.start()

    def start(self) -> None:
        self.process = subprocess.Popen(self.argv, env=self.env)
        self.started = time.monotonic()
        self.restart_at = None

    def exited(self) -> bool:
        """Did the process end by itself (and is no restart planned yet)?"""
        return self.restart_at is None and self.process.poll() is not None

    def plan_restart(self) -> bool:
        """Schedule a restart with back-off; False when it keeps failing at start-up."""
        now = time.monotonic()
        ran = now - self.started
        self.quick_failures = self.quick_failures + 1 if ran < STARTUP_SECONDS else 1
        code = self.process.returncode
        if self.quick_failures >= QUICK_FAILURES:
            log.error(
                "%s exited with code %s %d times in a row within %.0f s of starting; "
                "stopping everything (a configuration error?)",
                self.name, code, self.quick_failures, STARTUP_SECONDS,
            )  # fmt: skip
            return False
        delay = min(FIRST_BACKOFF * 2 ** (self.quick_failures - 1), MAX_BACKOFF)
        log.warning(
            "%s (pid %d) exited with code %s after %.1f s; restarting it in %.1f s",
            self.name, self.process.pid, code, ran, delay,
        )  # fmt: skip
        self.restart_at = now + delay
        return True

    def due(self) -> bool:
        return self.restart_at is not None and time.monotonic() >= self.restart_at


def _name(argv: list[str]) -> str:
    if "uvicorn" in argv:
        return "the web server (uvicorn)"
    if "--queue" in argv:
        return f"task_worker --queue {argv[argv.index('--queue') + 1]}"
    if "django" in argv:
        return argv[argv.index("django") + 1]
    return os.path.basename(argv[-1] if argv else "?")


def supervise(
    argvs: list[list[str]],
    env: dict,
    started: Callable[[Callable[[], bool]], None] | None = None,
    grace: float | None = None,
) -> int:
    """Run the commands, restart one that exits, and stop them all when told to.

    A child that exits by itself is started again after a growing pause (and
    the log says so); the others, the web server above all, run on. Only a
    child failing ``QUICK_FAILURES`` times in a row right after starting (a
    configuration error), SIGTERM or Ctrl-C stops the whole set.

    ``started``, if given, is called once the children run, with a function
    that says whether the set still runs (no stop asked for, nobody given
    up): the demo waits with it for the first index sync before printing its
    banner. Ctrl-C or SIGTERM while it runs stops everything as usual.

    Stopping sends each child SIGTERM and waits ``grace`` seconds
    (HERMES_UI_SHUTDOWN_GRACE_SECONDS) plus ``KILL_MARGIN`` for it to exit;
    uvicorn meanwhile finishes the requests it has begun (``uvicorn_argv``
    gives it the same grace). Returns 0 when we were told to stop and every
    child stopped cleanly (uvicorn re-raises the SIGTERM it caught, so "killed
    by SIGTERM" is clean too): a process manager sees no failure. A child that
    kept failing at start-up, failed while stopping, or had to be killed
    gives a non-zero code.
    """
    grace = settings.HERMES_UI_SHUTDOWN_GRACE_SECONDS if grace is None else grace
    children = [Child(argv, env) for argv in argvs]
    stopping: list[int] = []
    gave_up: list[subprocess.Popen] = []
    # Kept until every child is gone: a second SIGTERM during the grace
    # period must not kill this process and orphan its children.
    previous = signal.signal(signal.SIGTERM, lambda *_: stopping.append(signal.SIGTERM))

    def running() -> bool:
        return not stopping and not gave_up

    def tend() -> None:
        for child in children:
            if child.exited() and not stopping and not child.plan_restart():
                gave_up.append(child.process)
            elif child.due() and running():
                child.start()

    killed: list[subprocess.Popen] = []
    try:
        if started is not None:
            started(lambda: (tend(), running())[1])  # type: ignore[func-returns-value]
        while running():
            tend()
            time.sleep(0.2)
    except KeyboardInterrupt:
        stopping.append(signal.SIGINT)
    finally:
        processes = [child.process for child in children]
        for process in processes:
            if process.poll() is None:
                process.terminate()
        killed = _wait_or_kill(processes, grace + KILL_MARGIN)
        signal.signal(signal.SIGTERM, previous)
    # A child waiting for its restart already had its exit dealt with.
    stopped = [child.process for child in children if child.restart_at is None]
    return _exit_code(stopped, gave_up, killed, grace)


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


def _exit_code(children, gave_up, killed, grace: float) -> int:
    for child in gave_up:
        # A child that could not start: that is what the process manager must see.
        return _shell_code(child.returncode) if child.returncode else 1
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
