"""How long the Hermes work of one page may take, all calls and retries together.

A page sets a budget (``HERMES_PAGE_DEADLINE``, 10 s by default) when it
starts (``hermes_ui.web.deadline.DeadlineMiddleware``); every call the client
makes for it takes its timeouts from what is left, so three reads that each
wait the contract's 30 s can no longer hold a worker thread for 90 s. Code
that runs outside a page (background jobs, periodic rounds) has no budget:
each call is then bounded by its operation's own timeout as one total
deadline, which also holds against a server that trickles bytes.

The budget also carries the request's *gone* flag, set when the browser
disconnects: no further call or retry starts for a page nobody waits for.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Budget:
    ends_at: float
    gone: threading.Event = field(default_factory=threading.Event)

    def remaining(self) -> float:
        return self.ends_at - time.monotonic()


_budget: ContextVar[Budget | None] = ContextVar("hermes_budget", default=None)


@contextlib.contextmanager
def budget(seconds: float, gone: threading.Event | None = None) -> Iterator[Budget]:
    """Bound every Hermes call made inside the block to ``seconds`` in total."""
    current = Budget(time.monotonic() + seconds, gone or threading.Event())
    token = _budget.set(current)
    try:
        yield current
    finally:
        _budget.reset(token)


def current() -> Budget | None:
    return _budget.get()


def call_deadline(operation_timeout: float) -> float:
    """The monotonic time by which one call must be over: its own timeout or the page's budget."""
    own = time.monotonic() + operation_timeout
    page = _budget.get()
    return own if page is None else min(own, page.ends_at)


def abandoned() -> bool:
    """The page's browser has gone away: start nothing more for it."""
    page = _budget.get()
    return page is not None and page.gone.is_set()
