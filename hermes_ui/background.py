"""The background worker's rounds: index refresh and turn retention, off the web process.

``manage.py index_refresher`` runs these rounds (``make run`` and ``make serve``
start it beside uvicorn). Each round syncs every endpoint, unless
``HERMES_INDEX_REFRESH_SECONDS`` is 0, and applies the chat turn retention
(``chat.retention.purge``), which runs whatever the refresh interval.
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connections

from hermes_ui.chat import retention
from hermes_ui.endpoints import all_endpoints
from hermes_ui.index.refresher import sync_quietly

log = logging.getLogger("hermes_ui.background")

# With index refresh off, the worker still wakes this often to apply retention.
RETENTION_ROUND_SECONDS = 3600.0


def run(interval: float, stop: threading.Event, *, once: bool = False) -> int:
    """Rounds now and every ``interval`` seconds (hourly when 0) until ``stop``; rounds run."""
    rounds = 0
    while not stop.is_set():
        if interval > 0 or once:
            for endpoint in all_endpoints():
                sync_quietly(endpoint, None)
        purge_quietly()
        rounds += 1
        if once:
            break
        stop.wait(interval if interval > 0 else RETENTION_ROUND_SECONDS)
    return rounds


def purge_quietly() -> None:
    close_old_connections()
    try:
        counts = retention.purge()
        if counts["turns"] or counts["events"]:
            log.info("turn retention purged turns=%d events=%d", counts["turns"], counts["events"])
    except Exception:
        log.exception("turn retention failed")
    finally:
        connections.close_all()
