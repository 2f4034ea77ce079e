"""Benchmark of the usage page on a 10,000-session peer with 90 days of bookings.

``python manage.py bench --only usage`` seeds its own peer (the bench seed:
10,000 sessions started over the last 90 days, plus a 500-node lineage),
starts Hermes' own dashboard (``hermes_cli.web_server.start_server``) over a
copy of that home, and measures in a child process with a scratch database:

- a full index sync without the usage observer, then (index emptied) with
  it: the first sighting books every session's history, so this is the most
  booking one sync ever does;
- 90 days of growth booked through the same booking code (``booking.book``,
  the day set by ``clock.today``): each day 1,000 sessions' counters grow;
- the usage page for 90 days (full HTML with chart and table) against
  Hermes' dashboard ``/api/analytics/usage?days=90`` over the same 10,500
  sessions, median of 7 each, in the same run.
"""

from __future__ import annotations

import os
import random
import secrets
import time
from datetime import UTC, datetime, timedelta

import httpx

from devtools.bench.child import median_ms

DAYS = 90
GROWING_PER_DAY = 1_000


def run(stdout) -> None:
    from devtools.bench.child import hermes_dashboard, measure_in_child, seeded_peer

    with seeded_peer(stdout, "usage") as (scratch, peer), hermes_dashboard(peer, scratch) as env:
        measure_in_child(stdout, "devtools.bench.usage", scratch, peer, env)


def _sync_cost(ep, say) -> None:
    """A full sync without the observer, then (index emptied) with it, timing the observer.

    The two syncs' wall times differ with the machine's load and Hermes' warm
    cache more than by the booking, so the observer's own time inside the
    second sync is the figure; the totals are printed beside it.
    """
    from django.conf import settings

    from hermes_ui.index import sync
    from hermes_ui.index.models import IndexedSession, IndexSyncState
    from hermes_ui.index.observers import counters_moved
    from hermes_ui.usage.booking import on_counters_moved
    from hermes_ui.usage.models import Booking

    settings.HERMES_INDEX_CONTENT = False
    counters_moved.disconnect(dispatch_uid="usage.book")
    plain = sync.sync(ep, full=True)
    IndexedSession.objects.all().delete()
    IndexSyncState.objects.all().delete()
    spent = [0.0, 0]

    def timed(**kwargs):
        started = time.perf_counter()
        on_counters_moved(**kwargs)
        spent[0] += time.perf_counter() - started
        spent[1] += 1

    counters_moved.connect(timed, dispatch_uid="usage.book")
    booked = sync.sync(ep, full=True)
    counters_moved.disconnect(dispatch_uid="usage.book")
    counters_moved.connect(on_counters_moved, dispatch_uid="usage.book")
    say(
        f"full sync of {booked.rows_seen:,} rows ({booked.list_calls} list calls): "
        f"{plain.seconds:.1f} s without the usage observer, {booked.seconds:.1f} s with it; "
        f"the observer itself took {spent[0]:.2f} s over {spent[1]} pages "
        f"({spent[0] / max(1, spent[1]) * 1000:.1f} ms a page) writing "
        f"{Booking.objects.count():,} history bookings = {spent[0] / booked.seconds:.1%} "
        "of the sync"
    )


def _book_days(ep, say) -> None:
    from django.db import transaction

    from hermes_ui.index.models import IndexedSession
    from hermes_ui.index.observers import CounterChange, counters
    from hermes_ui.usage import booking, clock
    from hermes_ui.usage.models import Booking, DayTotal

    rows = list(IndexedSession.objects.filter(**ep.scope()))
    state = {row.session_id: counters(row) for row in rows}
    meta = {row.session_id: row for row in rows}
    rng = random.Random(22)
    today = datetime.now(UTC).date()
    started = time.perf_counter()
    for back in range(DAYS - 1, -1, -1):
        day = today - timedelta(days=back)
        clock.today = lambda day=day: day
        changes = []
        for sid in rng.sample(sorted(state), GROWING_PER_DAY):
            before = state[sid]
            after = dict(before)
            after["input_tokens"] = (before["input_tokens"] or 0) + rng.randint(500, 20_000)
            after["output_tokens"] = (before["output_tokens"] or 0) + rng.randint(50, 2_000)
            after["estimated_cost_usd"] = (before["estimated_cost_usd"] or 0) + rng.random() / 10
            state[sid] = after
            row = meta[sid]
            changes.append(
                CounterChange(sid, before, after, row.source, row.model, row.started_at, False)
            )
        for at in range(0, len(changes), 200):  # one observer call per sync page
            with transaction.atomic():
                booking.book(ep, changes[at : at + 200], datetime.now(UTC))
    seconds = time.perf_counter() - started
    say(
        f"{DAYS} days x {GROWING_PER_DAY:,} growing sessions booked in {seconds:.1f} s "
        f"({seconds / (DAYS * GROWING_PER_DAY / 200) * 1000:.1f} ms per 200-row page); "
        f"{Booking.objects.count():,} ledger rows, {DayTotal.objects.count():,} day totals"
    )


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user

    _sync_cost(ep, say)
    _book_days(ep, say)

    ensure_user("bench-reader", "support", secrets.token_urlsafe(18))
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-reader"))
    dashboard = httpx.Client(
        base_url=os.environ["BENCH_DASHBOARD_URL"],
        timeout=60,
        headers={"X-Hermes-Session-Token": os.environ["BENCH_DASHBOARD_TOKEN"]},
    )
    url = f"/e/{ep.id}/usage/?days=90"
    page = client.get(url)
    assert page.status_code == 200, page.status_code
    theirs_answer = dashboard.get("/api/analytics/usage", params={"days": 90})
    theirs_answer.raise_for_status()
    ours = median_ms(lambda: client.get(url), 7)
    theirs = median_ms(
        lambda: dashboard.get("/api/analytics/usage", params={"days": 90}).raise_for_status(), 7
    )
    lines = page.content.decode().count("<tr class=")
    daily = theirs_answer.json().get("daily") or []
    say(
        f"usage page, 90 days (full HTML: SVG chart + {lines} table lines) {ours:.1f} ms vs "
        f"Hermes' dashboard /api/analytics/usage?days=90 ({len(daily)} daily rows, JSON) "
        f"{theirs:.1f} ms, median of 7; ratio {ours / theirs:.2f} (target <= 0.25: "
        f"{'met' if ours <= 0.25 * theirs else 'NOT met'})"
    )
    csv_ms = median_ms(lambda: client.get(url + "&format=csv"), 7)
    say(f"the same table as CSV: {csv_ms:.1f} ms, median of 7")


if __name__ == "__main__":
    _measure()
