"""Booking the counters' changes that an index sync saw (``index.observers.counters_moved``).

Each sync books, per session, how much its counters grew since the previous
sync, on the UTC day of the sync (``clock.today``), never on the session's
start day: a long session's tokens land on the days they were spent.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime

from django.db.models import Sum

from hermes_ui.hermes.contract import USAGE_COUNTERS as AMOUNTS
from hermes_ui.index.observers import CounterChange
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.usage import clock, totals
from hermes_ui.usage.models import Booking


def on_counters_moved(sender, endpoint, changes, seen_at, **kwargs) -> None:
    book(endpoint, changes, seen_at)


def book(endpoint: Endpoint, changes: list[CounterChange], seen_at: datetime) -> int:
    """Book ``changes``; returns the number of ledger rows written."""
    today = clock.today()
    prior = _already_booked(endpoint, [c.session_id for c in changes if c.first_seen])
    rows = []
    for change in changes:
        day, history = today, False
        before = change.before
        if change.first_seen:
            before = prior.get(change.session_id)  # type: ignore[assignment]
            if before is None:
                day, history = clock.day_of(change.started_at) or today, True
        amounts = growth(before or {}, change.after)
        if not any(amounts.values()):
            continue
        rows.append(
            Booking(
                **endpoint.scope(),
                session_id=change.session_id,
                day=day,
                history=history,
                source=change.source,
                model=change.model,
                booked_at=seen_at,
                **amounts,
            )
        )
    seen = [row for row in rows if not row.history]
    Booking.objects.bulk_create(seen, batch_size=500)
    first = [row for row in rows if row.history]
    if first:
        # One history row per session (a constraint): a sync and a page load
        # adding the same new row at once both get here, and only the
        # writer whose rows went in adds them to the day totals.
        Booking.objects.bulk_create(first, batch_size=500, ignore_conflicts=True)
        ours = set(
            Booking.objects.filter(
                **endpoint.scope(),
                history=True,
                booked_at=seen_at,
                session_id__in=[row.session_id for row in first],
            ).values_list("session_id", flat=True)
        )
        first = [row for row in first if row.session_id in ours]
    totals.add(totals.summed([*seen, *first], _total_key))
    return len(seen) + len(first)


def growth(before: dict, after: dict) -> dict:
    """What each counter grew by; a counter that went down (or vanished) grew by 0."""
    grown = {}
    for name in AMOUNTS:
        old, new = before.get(name) or 0, after.get(name) or 0
        grown[name] = new - old if new > old else 0
    return grown


def _total_key(row: Booking) -> tuple:
    return (row.endpoint, row.endpoint_fp, row.day, row.source, row.model, row.history, False)


def _already_booked(endpoint: Endpoint, session_ids: list[str]) -> dict[str, dict]:
    if not session_ids:
        return {}
    found: dict[str, dict] = defaultdict(dict)
    rows = (
        Booking.objects.filter(**endpoint.scope(), session_id__in=session_ids)
        .values("session_id")
        .annotate(**{name: Sum(name) for name in AMOUNTS})
    )
    for row in rows:
        found[row["session_id"]] = {name: row[name] for name in AMOUNTS}  # type: ignore[literal-required]
    return dict(found)
