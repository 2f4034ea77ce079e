"""All periodic work, in one table, run on the task queue of ``QUEUE``.

Each row is a round of ``run(name)``: it queues its own next run, then does the
work (``rounds``). A task worker serving ``QUEUE`` starts every round that
is not already waiting, at start-up and on each heartbeat (``start``), so a
round lost to a crash or an outage comes back by itself. See
docs/operating/background-jobs.md for the operator's view.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from django.conf import settings
from django_tasks import task

from hermes_ui.api_tokens import expiry
from hermes_ui.background import rounds
from hermes_ui.background.workers import erase as task_records
from hermes_ui.chat import retention as turn_retention
from hermes_ui.endpoint_status import rounds as probing
from hermes_ui.index.refresher import sync_quietly
from hermes_ui.live import poller
from hermes_ui.notifications import outbox
from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.platform.outages import DATABASE, database_unreachable, log_failure
from hermes_ui.retention import runs as retention_runs
from hermes_ui.review import rules_task, waiting
from hermes_ui.shares import links as share_links
from hermes_ui.sso import revalidation as sso_revalidation
from hermes_ui.webhooks import rounds as webhook_rounds

log = logging.getLogger("hermes_ui.background")

QUEUE = "periodic"
HOUR = 3600.0


def refresh_index() -> int:
    """Sync every endpoint with the session API, then its review rules and retention runs."""
    synced = 0
    for endpoint in filter(probing.has_session_api, all_endpoints()):
        if sync_quietly(endpoint, None) is not None:
            rules_task.enqueue_for(endpoint)
            retention_runs.run_due_quietly(endpoint)
            synced += 1
    return synced


def _refresh() -> float:
    return settings.HERMES_INDEX_REFRESH_SECONDS


def _live() -> float:
    # Live updates ride on the index: with refresh off there is nothing to publish.
    return settings.HERMES_UI_LIVE_SECONDS if _refresh() > 0 else 0


def _turn_purge() -> float:
    # Turn retention applies even with refresh off, then hourly.
    return _refresh() or HOUR


@dataclass(frozen=True)
class Periodic:
    name: str
    seconds: Callable[[], float]  # between two starts; 0 turns the round off
    work: Callable[[], object]  # its return value is kept on the task's record


SCHEDULE = (
    Periodic("probes", lambda: settings.HERMES_UI_ENDPOINT_WATCH_SECONDS, probing.probe_round),
    Periodic("index", _refresh, refresh_index),
    Periodic("live", _live, poller.poll_round),
    Periodic("turn-purge", _turn_purge, turn_retention.purge),
    Periodic("digests", lambda: settings.HERMES_UI_ROUND_SECONDS, outbox.digests),
    Periodic("waiting-queues", lambda: HOUR, waiting.announce),
    Periodic("token-expiry", lambda: HOUR, expiry.announce),
    Periodic("webhook-recovery", lambda: settings.HERMES_UI_ROUND_SECONDS, webhook_rounds.sweep),
    Periodic("task-records", lambda: task_records.PRUNE_EVERY, task_records.prune),
    # Each SSO person's refresh token, once they are due (HERMES_UI_SSO_REVALIDATE_MINUTES).
    Periodic("sso-revalidate", sso_revalidation.round_seconds, sso_revalidation.revalidate_round),
    # An expired or used-up share link keeps no transcript even if nobody lists shares.
    Periodic("share-purge", lambda: settings.HERMES_UI_ROUND_SECONDS, share_links.purge_ended),
)
BY_NAME = {each.name: each for each in SCHEDULE}


@task(queue_name=QUEUE)
def run(name: str):
    """One round of ``name``: its next run is queued first, then the work runs."""
    entry = BY_NAME.get(name)
    seconds = entry.seconds() if entry is not None else 0
    if entry is None or not seconds:  # gone from the table or turned off: the round ends here
        return None
    try:
        rounds.schedule(run, seconds, name)
        found = entry.work()
    except Exception as exc:
        if not database_unreachable(exc):
            raise
        # Said once for the whole outage; the heartbeat restarts a round it lost.
        DATABASE.failed(exc, f"round {name}")
        return None
    return found if isinstance(found, int | str | dict) else None


def start(worker_id: str = "") -> list[str]:
    """Queue every round that is on and not waiting; the names queued. Never raises."""
    try:
        waiting_now = {tuple(args) for args in rounds.waiting_args(run)}
        started = []
        for entry in SCHEDULE:
            if entry.seconds() and (entry.name,) not in waiting_now:
                run.enqueue(entry.name)
                started.append(entry.name)
        return started
    except Exception:  # e.g. before ``migrate``; an outage is said once
        log_failure(log, "starting the periodic rounds")
        return []


def run_now(name: str) -> object:
    """The work of ``name`` in this process, once (``manage.py run_periodic``)."""
    return BY_NAME[name].work()
