"""A sync asked to stop (SIGTERM from a deploy, Ctrl-C) lets go of its lease.

Without it a killed sync kept its lease until ``LEASE`` passed. ``index_sync``
and ``run_periodic`` install ``on_signals``; a task worker calls
``request_stop`` on its first stop signal. A second signal stops at once.
"""

from __future__ import annotations

import contextlib
import signal
import threading

STOP = threading.Event()


class SyncStopped(Exception):
    """The process was asked to stop: the sync ends here, cleanly."""


def check() -> None:
    if STOP.is_set():
        raise SyncStopped


def pause(seconds: float) -> None:
    """Sleep ``seconds`` unless a stop is asked for first (then raise ``SyncStopped``)."""
    if seconds > 0 and STOP.wait(seconds):
        raise SyncStopped
    check()


def request_stop() -> None:
    STOP.set()


def _handler(signum, frame) -> None:
    if STOP.is_set():
        raise KeyboardInterrupt  # asked twice: stop now
    STOP.set()


@contextlib.contextmanager
def on_signals(*, also=None):
    """SIGTERM and SIGINT ask running syncs to stop (``also()`` is called too)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum, frame):
        if also is not None:
            also()
        _handler(signum, frame)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for signum, old in previous.items():
            signal.signal(signum, old)
        STOP.clear()
