"""What an eraser of session data uses: its endpoint's rows, ids in JSON, steps after commit.

The erasers themselves are listed in ``deletion/erasers.py``; each runs inside
the erasure's transaction and leaves what lies outside the database to ``after_commit``.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from typing import TYPE_CHECKING

from django.db.models import F, Q, TextField
from django.db.models.functions import Cast
from django.db.models.lookups import Contains

if TYPE_CHECKING:
    from hermes_ui.platform.endpoints import Endpoint

Counts = dict[str, int]


_steps: ContextVar[list[Callable[[], Counts | None]] | None] = ContextVar(
    "erasers_steps", default=None
)


def mine(scope: Endpoint) -> Q:
    """The rows of this endpoint identity, for models stamped with ``endpoint``/``endpoint_fp``."""
    # Rows stamped before endpoint identities existed carry no fingerprint;
    # erasing them too errs on the side of the data subject.
    return Q(endpoint=scope.id, endpoint_fp__in=[scope.fingerprint, ""])


def strings(value) -> Iterator[str]:
    """Every string inside a JSON value (the ids an event or a task's arguments carry)."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings(item)


_PLAIN = re.compile(r"^[A-Za-z0-9_.:-]+$")
_NARROW_AT_MOST = 100


def text_names(field: str, ids: list[str]) -> Q:
    """Rows whose ``field`` (text, or JSON read as text) contains one of ``ids``: a
    narrowing for the database, never the decision (the caller parses what it reads).

    An id JSON would escape, or too many ids, narrow nothing (``Q()``: every row).
    """
    if not ids or len(ids) > _NARROW_AT_MOST or not all(_PLAIN.match(i) for i in ids):
        return Q()
    found = Q()
    for session_id in ids:
        found |= Q(Contains(Cast(F(field), TextField()), session_id))
    return found


def after_commit(step: Callable[[], Counts | None]) -> None:
    """Run ``step`` once the erasure's transaction has committed; add the counts it returns.

    For copies outside the database (caches, files, Redis) and for database
    maintenance that cannot run in a transaction. Unlike
    ``transaction.on_commit`` the steps run before SQLite drops the erased
    bytes (``sqlite_wipe``), and they report what they erased.
    """
    steps = _steps.get()
    if steps is None:
        raise RuntimeError("after_commit is for erasers, while deletion.erasure runs them")
    steps.append(step)


@contextlib.contextmanager
def collecting() -> Iterator[list[Callable[[], Counts | None]]]:
    """The steps erasers give to ``after_commit`` while the block runs (``deletion.erasure``)."""
    steps: list[Callable[[], Counts | None]] = []
    token = _steps.set(steps)
    try:
        yield steps
    finally:
        _steps.reset(token)
