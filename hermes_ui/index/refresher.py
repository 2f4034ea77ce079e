"""Keeping the index fresh from inside the web process, off the request path.

The background refresher is a daemon thread started on the first request
that reaches the real ASGI server (``request_started`` from
``ASGIHandler``), never from the test client or a management command. It
runs an incremental sync of every endpoint each
``HERMES_INDEX_REFRESH_SECONDS`` (0 turns it off); a sync decides for itself
when a full sweep is due. The refresh button starts the same sync in a
one-off thread. A database lease (``IndexSyncState.running_since``) makes
sure only one sync per endpoint runs at a time, whoever started it.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.db import close_old_connections, connections

from hermes_ui.endpoints import Endpoint, all_endpoints
from hermes_ui.index import sync

log = logging.getLogger("hermes_ui.index")

_started = threading.Event()
_start_lock = threading.Lock()
_stop = threading.Event()


def on_request_started(sender, **kwargs) -> None:
    """``request_started`` receiver: start the refresher in a real ASGI server."""
    if _started.is_set() or not isinstance(sender, type) or not issubclass(sender, ASGIHandler):
        return
    start_background()


def start_background() -> bool:
    interval = settings.HERMES_INDEX_REFRESH_SECONDS
    if interval <= 0:
        return False
    with _start_lock:
        if _started.is_set():
            return False
        _started.set()
    thread = threading.Thread(target=_loop, args=(interval,), name="index-refresher", daemon=True)
    thread.start()
    return True


def _loop(interval: float) -> None:
    while not _stop.is_set():
        for endpoint in all_endpoints():
            _sync_quietly(endpoint, None)
        _stop.wait(interval)


def sync_in_background(endpoint: Endpoint, *, full: bool | None) -> threading.Thread | None:
    """One sync now, in its own thread (the refresh button); None if one is running.

    ``full=None`` sweeps when a sweep is due. The lease is taken here, in the
    request, so the status the page shows next already says "refreshing".
    """
    if full is None:
        full = sync.due_full(sync.state_for(endpoint.id))
    if not sync.acquire(endpoint.id, full):
        return None
    thread = threading.Thread(
        target=_sync_quietly, args=(endpoint, full, True), name=f"index-sync-{endpoint.id}",
        daemon=True,
    )  # fmt: skip
    thread.start()
    return thread


def _sync_quietly(endpoint: Endpoint, full: bool | None, leased: bool = False) -> None:
    close_old_connections()
    try:
        sync.sync(endpoint, full=full, leased=leased)
    except Exception:
        # A background thread has nobody to show a traceback to; the state row
        # keeps the error code for the freshness line, the log keeps the rest.
        log.exception("index sync endpoint=%s failed", endpoint.id)
    finally:
        connections.close_all()
