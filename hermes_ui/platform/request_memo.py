"""What one request reads once: a memo that lives as long as the request.

Several parts of one page ask the same question of the database (the stored
endpoint probes: the session-API gate, the layout's banner, the chat box's
capabilities). ``remember(key, compute)`` answers it once per request; outside
a request (a task, a command, a test without the middleware) it computes every
time. Whatever writes what a memo holds calls ``forget(key)``.

The memo is a context variable: the session page's worker thread (which runs
in a copy of the request's context) sees the same memo.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from contextvars import ContextVar
from typing import TypeVar

T = TypeVar("T")
_MEMO: ContextVar[dict | None] = ContextVar("hermes_ui_request_memo", default=None)


@contextlib.contextmanager
def scope():
    """A fresh memo for the block (a request)."""
    token = _MEMO.set({})
    try:
        yield
    finally:
        _MEMO.reset(token)


def remember(key: str, compute: Callable[[], T]) -> T:
    memo = _MEMO.get()
    if memo is None:
        return compute()
    if key not in memo:
        memo[key] = compute()
    return memo[key]


def forget(key: str) -> None:
    memo = _MEMO.get()
    if memo is not None:
        memo.pop(key, None)
