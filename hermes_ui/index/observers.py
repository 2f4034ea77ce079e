"""How a sync moved each session's usage counters, and the signal that tells who keeps them.

``store.upsert`` sends ``counters_moved`` once per written page of rows, inside
the transaction that writes them (``send()``, not ``send_robust()``): a failing
receiver rolls the rows back, so the next sync sees the change again.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from django.dispatch import Signal

from hermes_ui.hermes.contract import USAGE_COUNTERS as COUNTERS

if TYPE_CHECKING:
    from hermes_ui.platform.endpoints import Endpoint


@dataclass(frozen=True)
class CounterChange:
    session_id: str
    before: dict  # counter -> value the index held (empty when first seen)
    after: dict  # counter -> value the provider reports now (None: not reported)
    source: str
    model: str
    started_at: float | None
    first_seen: bool


# Sent with ``endpoint``, ``changes`` (sessions first seen or whose counters moved)
# and ``seen_at``; the usage feature books them.
counters_moved = Signal()


def counters(values) -> dict:
    """The counters of an index row (a model instance) or of a columns dict."""
    if isinstance(values, dict):
        return {name: values.get(name) for name in COUNTERS}
    return {name: getattr(values, name) for name in COUNTERS}


def change(session_id: str, before: dict | None, cols: dict) -> CounterChange | None:
    """The change from ``before`` (None: first seen) to ``cols``, or None if nothing moved."""
    after = counters(cols)
    if before is not None and before == after:
        return None
    return CounterChange(
        session_id,
        before or {},
        after,
        cols.get("source") or "",
        cols.get("model") or "",
        cols.get("started_at"),
        before is None,
    )


def notify(endpoint: Endpoint, changes: list[CounterChange], seen_at: datetime) -> None:
    if changes:
        counters_moved.send(sender=None, endpoint=endpoint, changes=changes, seen_at=seen_at)
