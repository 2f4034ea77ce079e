"""A cap on the calls one worker process has in flight to any one endpoint.

Without it, ten pages of one slow Hermes take ten of a worker's threads and
the pages of every other endpoint queue behind them. Each endpoint may hold
at most ``HERMES_BULKHEAD`` threads of a process at once (by default half of
``HERMES_UI_VIEW_THREADS``); a call over the cap waits at most
``HERMES_BULKHEAD_WAIT`` (half a second by default: enough to ride out a
burst against a healthy server on a busy worker, where the capped scale bench
saw 503s at a tenth of a second) and then fails with 503, long before the
page's 10 s deadline.

Only pages (calls made under a page budget, see ``deadline``) take a slot:
background work (periodic rounds, jobs) runs on threads of its own,
bounded by their own pools, and never holds a page thread. A page that makes
calls at once from helper threads holds one slot for all of them
(``HermesClient.page_slot``): the calls inside ride on it (``riding``).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar

from django.conf import settings

from hermes_ui.platform import metrics
from hermes_ui.platform.endpoints import Endpoint

_lock = threading.Lock()
_slots: dict[str, threading.BoundedSemaphore] = {}
_riding: ContextVar[bool] = ContextVar("bulkhead_riding", default=False)


class Full(Exception):
    pass


def _semaphore(endpoint: Endpoint) -> threading.BoundedSemaphore:
    key = f"{endpoint.id}|{endpoint.base_url}"
    with _lock:
        found = _slots.get(key)
        if found is None:
            found = _slots[key] = threading.BoundedSemaphore(settings.HERMES_BULKHEAD)
            metrics.BULKHEAD_SLOTS.labels(endpoint.id).inc(settings.HERMES_BULKHEAD)
            metrics.BULKHEAD_FULL.labels(endpoint.id)  # at 0, before the first refusal
        return found


@contextlib.contextmanager
def riding() -> Iterator[None]:
    """Calls made inside take no slot: they ride on one the page holds (the module's doc)."""
    token = _riding.set(True)
    try:
        yield
    finally:
        _riding.reset(token)


@contextlib.contextmanager
def slot(endpoint: Endpoint) -> Iterator[None]:
    if _riding.get():
        yield
        return
    semaphore = _semaphore(endpoint)
    if not semaphore.acquire(timeout=settings.HERMES_BULKHEAD_WAIT):
        metrics.BULKHEAD_FULL.labels(endpoint.id).inc()
        raise Full
    in_use = metrics.BULKHEAD_IN_USE.labels(endpoint.id)
    in_use.inc()
    try:
        yield
    finally:
        in_use.dec()
        semaphore.release()


def reset_all() -> None:
    with _lock:
        _slots.clear()
        metrics.BULKHEAD_SLOTS.clear()
