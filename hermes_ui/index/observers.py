"""Who wants to know how a sync moved each session's usage counters, by registration.

The index knows the previous and the new token and cost counters of every
row it writes; features that keep usage over time (``usage``) register an
observer from ``AppConfig.ready()``::

    observers.register("usage", book)   # book(endpoint, changes, seen_at)

``store.upsert`` calls every observer once per written page of rows, inside
the transaction that writes the rows: a booking that fails rolls the rows
back too, so the same change is seen again by the next sync, never lost and
never booked twice. Only sessions whose counters moved, or that the index
sees for the first time, are passed.

This module holds only the registry: it imports no feature.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

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


Observer = Callable[["Endpoint", list[CounterChange], datetime], None]
_registry: dict[str, Observer] = {}


def register(name: str, observe: Observer) -> None:
    """Add (or replace) an observer; call it from ``AppConfig.ready()``."""
    _registry[name] = observe


def unregister(name: str) -> Observer | None:
    """Remove an observer and return it (benchmarks and tests: "without this feature")."""
    return _registry.pop(name, None)


def registered() -> list[Observer]:
    return list(_registry.values())


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
    if not changes:
        return
    for observe in _registry.values():
        observe(endpoint, changes, seen_at)
