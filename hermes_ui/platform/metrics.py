"""The Prometheus series the code pushes as things happen (prometheus-client).

``/metrics`` (``hermes_ui/monitoring``) serves them together with the values
read from the database at scrape time. Every label takes an operator-configured
endpoint id or a name fixed in the code, never a session id, a title, a path or
anything a user typed, so the number of series stays bounded
(docs/operating/monitoring.md lists them).

With ``HERMES_UI_METRICS_TOKEN`` set, the settings point prometheus-client's
multiprocess mode at ``<data dir>/metrics`` before anything imports it: each
process writes its values there and a scrape of any worker adds them up.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client import multiprocess as _multiprocess

# Pages and Hermes calls: a dashboard page takes tens of milliseconds; a page waits
# at most HERMES_PAGE_DEADLINE (10 s), a chat turn longer.
_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 120.0)

REQUEST_SECONDS = Histogram(
    "hermes_ui_request_duration_seconds",
    "Time to answer a request, by URL pattern name and status class.",
    ["view", "status"],
    buckets=_BUCKETS,
)
HERMES_CALL_SECONDS = Histogram(
    "hermes_ui_hermes_call_duration_seconds",
    "Time of one call (one attempt) to Hermes, by endpoint, operation and outcome.",
    ["endpoint", "operation", "outcome"],
    buckets=_BUCKETS,
)
BREAKER_OPEN = Gauge(
    "hermes_ui_breaker_open",
    "1 while a worker process sees the endpoint's circuit breaker open.",
    ["endpoint"],
    multiprocess_mode="livemax",
)
BULKHEAD_IN_USE = Gauge(
    "hermes_ui_bulkhead_in_use",
    "Bulkhead slots in use (Hermes calls in flight from pages), summed over workers.",
    ["endpoint"],
    multiprocess_mode="livesum",
)
BULKHEAD_SLOTS = Gauge(
    "hermes_ui_bulkhead_slots",
    "Bulkhead slots (HERMES_BULKHEAD per worker), summed over workers.",
    ["endpoint"],
    multiprocess_mode="livesum",
)
BULKHEAD_FULL = Counter(
    "hermes_ui_bulkhead_full",
    "Hermes calls refused because every bulkhead slot stayed taken.",
    ["endpoint"],
)
TASKS_FINISHED = Counter(
    "hermes_ui_tasks_finished",
    "Background tasks finished, by queue, task and outcome.",
    ["queue", "task", "outcome"],
)
DELIVERIES = Counter(
    "hermes_ui_deliveries",
    "Webhook and mail delivery attempts, by channel and result.",
    ["channel", "result"],
)
LIVE_STREAMS = Gauge(
    "hermes_ui_live_streams",
    "Live-update event streams open, summed over workers.",
    multiprocess_mode="livesum",
)

# Every channel and result at 0 from the start, so that rate() and the alert rules see
# a series before the first delivery.
for _channel in ("webhook", "mail"):
    for _result in ("delivered", "retrying", "failed"):
        DELIVERIES.labels(_channel, _result)

# Hermes call outcomes (the ``outcome`` label).
OK, CLIENT_ERROR, SERVER_ERROR = "ok", "client_error", "server_error"
TIMEOUT, TRANSPORT, BREAKER, BUSY = "timeout", "transport", "breaker_open", "busy"


def status_outcome(status: int) -> str:
    """A Hermes answer's ``outcome`` label: 429 and 5xx are the server's trouble."""
    if status == 429 or status >= 500:
        return SERVER_ERROR
    return CLIENT_ERROR if status >= 400 else OK


def directory() -> Path | None:
    """The multiprocess directory, or None when each process keeps its own values."""
    found = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    return Path(found) if found else None


def fresh_directory() -> None:
    """Empty the multiprocess directory before a new set of processes starts (``serve``,
    the demo): files of the last run's processes would otherwise count forever."""
    found = directory()
    if found is None:
        return
    shutil.rmtree(found, ignore_errors=True)
    found.mkdir(mode=0o700, parents=True, exist_ok=True)


def forget_dead_processes() -> None:
    """Drop the live gauges of processes that have exited (a killed uvicorn worker)."""
    found = directory()
    if found is None:
        return
    pids = {int(p.stem.rsplit("_", 1)[1]) for p in found.glob("gauge_live*_*.db")}
    for pid in pids:
        if not _alive(pid):
            _multiprocess.mark_process_dead(pid, str(found))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
