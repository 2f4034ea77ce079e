"""``manage.py index_refresher [--once] [--interval S]``: the background worker process.

Its rounds: index refresh and turn retention, off the web process (``make run``
and ``make serve`` start it beside uvicorn). Each round syncs every endpoint, unless
``HERMES_INDEX_REFRESH_SECONDS`` is 0, then enqueues a task running the endpoint's
review rules over the fresh index (``review.rules_task``) and, once a day, runs its
retention rules (``retention.runs``: each files a deletion batch for a second admin),
and applies the chat turn retention (``chat.retention.purge``), which runs whatever
the refresh interval.
"""

from __future__ import annotations

import logging
import threading

from django.conf import settings
from django.core.management.base import BaseCommand
from django.db import close_old_connections, connections

from hermes_ui.chat import retention
from hermes_ui.endpoint_status import rounds as probe_rounds
from hermes_ui.index import stopping
from hermes_ui.index.refresher import sync_quietly
from hermes_ui.live import poller as live_poller
from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.platform.outages import database_ready, log_failure
from hermes_ui.retention import runs as retention_runs
from hermes_ui.review import rules_task

log = logging.getLogger("hermes_ui.background")

# With index refresh off, the worker still wakes this often to apply retention.
RETENTION_ROUND_SECONDS = 3600.0
# The longest wait between two looks at a database that went away.
MAX_PAUSE = 5.0


def run(interval: float, stop: threading.Event, *, once: bool = False) -> int:
    """Rounds now and every ``interval`` seconds (hourly when 0) until ``stop``; rounds run."""
    rounds, pause = 0, 0.25
    while not stop.is_set():
        if not database_ready("index refresher"):
            stop.wait(pause)  # an outage is waited out, said once, with a growing pause
            pause = min(pause * 2, MAX_PAUSE)
            continue
        pause = 0.25
        probe_rounds.probe_quietly()  # a Hermes without the session API is known at once
        if interval > 0 or once:
            for endpoint in filter(probe_rounds.has_session_api, all_endpoints()):
                if sync_quietly(endpoint, None) is not None:
                    rules_task.enqueue_for(endpoint)
                    retention_runs.run_due_quietly(endpoint)
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
        log_failure(log, "turn retention failed")
    finally:
        connections.close_all()


class Command(BaseCommand):
    help = (
        "Keep the session index fresh: sync every endpoint now and every "
        "HERMES_INDEX_REFRESH_SECONDS, until stopped. Safe to run on several hosts: "
        "a database lease lets one sync per endpoint run at a time."
    )

    def add_arguments(self, parser):
        parser.add_argument("--once", action="store_true", help="one round, then exit")
        parser.add_argument(
            "--interval", type=float, default=None, help="seconds between rounds (default: setting)"
        )

    def handle(self, *args, once=False, interval=None, **options):
        interval = settings.HERMES_INDEX_REFRESH_SECONDS if interval is None else interval
        if interval <= 0 and not once:
            self.stdout.write(
                "Index refresh is off (HERMES_INDEX_REFRESH_SECONDS=0); "
                "turn retention still runs hourly."
            )
        stop = threading.Event()
        if interval > 0 and not once:
            live_poller.start(stop)  # watched endpoints, every HERMES_UI_LIVE_SECONDS
        # A stop also ends the round's running sync, which releases its lease.
        with stopping.on_signals(also=stop.set):
            rounds = run(interval, stop, once=once)
        self.stdout.write(f"index refresher stopped after {rounds} round(s)")
