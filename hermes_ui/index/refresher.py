"""Keeping the index fresh off the request path: syncs run as tasks of the task queue.

The periodic sync of every endpoint is a round of ``background/schedule.py``;
the refresh button queues one sync (``sync_task``). The sync lease makes sure
only one sync per endpoint runs at a time, whoever started it.
"""

from __future__ import annotations

import logging

from django.db import close_old_connections
from django_tasks import task

from hermes_ui.index import sync
from hermes_ui.platform.endpoints import Endpoint, configured
from hermes_ui.platform.outages import log_failure

log = logging.getLogger("hermes_ui.index")


def sync_in_background(endpoint: Endpoint, *, full: bool | None) -> bool:
    """Queue one sync now (the refresh button); False if one is running.

    ``full=None`` sweeps when a sweep is due. The lease is taken here, in the
    request, so the status the page shows next already says "refreshing".
    """
    recheck = False
    if full is None:
        full, recheck = sync.due(sync.state_for(endpoint))
    if not sync.acquire(endpoint, full or recheck):
        return False
    sync_task.enqueue(endpoint.id, endpoint.fingerprint, full, recheck)
    return True


@task()
def sync_task(endpoint_id: str, fingerprint: str, full: bool, recheck: bool) -> str:
    """The sync the refresh button queued, holding the lease it took."""
    endpoint = configured(endpoint_id, fingerprint)
    if endpoint is None:  # reconfigured since: the lease runs out by itself
        return ""
    report = sync_quietly(endpoint, full, leased=True, recheck=recheck)
    return report.summary() if report is not None else ""


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
        # Nobody to show a traceback to; the state row keeps the error code for
        # the freshness line, the log keeps the rest.
        log_failure(log, "index sync endpoint=%s failed", endpoint.id)
        return None
