"""Keeping the index fresh, off the request path and out of the web process.

The periodic refresher is its own process, ``manage.py index_refresher``
(``make run`` and ``make serve`` start it beside uvicorn): it syncs every
endpoint each ``HERMES_INDEX_REFRESH_SECONDS`` (0 turns syncing off), and a sync
decides for itself when a full sweep is due. The refresh button starts the
same sync in a one-off thread of the web process that took the request. A
database lease (``IndexSyncState.running_since``, renewed as the sync
progresses) makes sure only one sync per endpoint runs at a time across every
process and host, whoever started it: a second one is skipped, not queued.
The process's rounds (sync plus turn retention) are the ``index_refresher``
command's (``hermes_ui/management/commands/index_refresher.py``).
"""

from __future__ import annotations

import logging
import threading

from django.db import close_old_connections, connections

from hermes_ui.index import sync
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.outages import log_failure

log = logging.getLogger("hermes_ui.index")


def sync_in_background(endpoint: Endpoint, *, full: bool | None) -> threading.Thread | None:
    """One sync now, in its own thread (the refresh button); None if one is running.

    ``full=None`` sweeps when a sweep is due. The lease is taken here, in the
    request, so the status the page shows next already says "refreshing".
    """
    recheck = False
    if full is None:
        full, recheck = sync.due(sync.state_for(endpoint))
    if not sync.acquire(endpoint, full or recheck):
        return None
    thread = threading.Thread(
        target=sync_quietly,
        args=(endpoint, full, True, recheck),
        name=f"index-sync-{endpoint.id}",
        daemon=True,
    )
    thread.start()
    return thread


def sync_quietly(
    endpoint: Endpoint, full: bool | None, leased: bool = False, recheck: bool | None = None
) -> sync.Report | None:
    close_old_connections()
    try:
        report = sync.sync(endpoint, full=full, recheck=recheck, leased=leased)
        # A round that went well is routine: the console keeps what needs a person.
        log.debug("index refresher %s", report.summary())
        return report
    except Exception:
        # A background thread has nobody to show a traceback to; the state row
        # keeps the error code for the freshness line, the log keeps the rest.
        log_failure(log, "index sync endpoint=%s failed", endpoint.id)
        return None
    finally:
        connections.close_all()
