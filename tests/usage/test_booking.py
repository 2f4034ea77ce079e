"""Booking: what each sync saw the counters grow by, on the day it saw it."""

from datetime import date

import pytest

from hermes_ui.index import store
from hermes_ui.usage.models import Booking, DayTotal
from tests.usage.helpers import START_DAY, row, sync_on

pytestmark = pytest.mark.django_db
DAY1, DAY2, DAY3 = date(2026, 11, 20), date(2026, 11, 21), date(2026, 11, 22)


def totals(ep):
    return {
        (t.day, t.source, t.history, t.deleted): (
            t.input_tokens,
            t.output_tokens,
            t.estimated_cost_usd,
        )
        for t in DayTotal.objects.filter(**ep.scope())
    }


def test_first_sync_books_history_on_the_start_day_then_growth_on_the_sync_day(
    monkeypatch, mock_endpoint
):
    ep = mock_endpoint
    sync_on(
        monkeypatch,
        DAY1,
        ep,
        [row("a", input_tokens=1000, output_tokens=50, estimated_cost_usd=0.5)],
    )
    assert totals(ep) == {(START_DAY, "cli", True, False): (1000, 50, 0.5)}
    sync_on(
        monkeypatch,
        DAY2,
        ep,
        [row("a", input_tokens=1300, output_tokens=80, estimated_cost_usd=0.75)],
        2,
    )
    assert totals(ep) == {
        (START_DAY, "cli", True, False): (1000, 50, 0.5),
        (DAY2, "cli", False, False): (300, 30, 0.25),
    }
    # Two syncs on one day add up in one day total, one ledger row each.
    sync_on(
        monkeypatch,
        DAY2,
        ep,
        [row("a", input_tokens=1400, output_tokens=80, estimated_cost_usd=0.75)],
        3,
    )
    assert totals(ep)[(DAY2, "cli", False, False)] == (400, 30, 0.25)
    assert Booking.objects.filter(session_id="a").count() == 3


def test_a_sync_that_sees_no_change_books_nothing(monkeypatch, mock_endpoint):
    ep = mock_endpoint
    sync_on(monkeypatch, DAY1, ep, [row("a", input_tokens=10)])
    sync_on(monkeypatch, DAY2, ep, [row("a", input_tokens=10, title_ignored=1)], 2)
    assert Booking.objects.count() == 1
    # A title change moves the row but not the counters: still nothing booked.
    sync_on(monkeypatch, DAY2, ep, [{**row("a", input_tokens=10), "title": "renamed"}], 3)
    assert Booking.objects.count() == 1


def test_a_counter_that_went_down_books_nothing_and_the_next_rise_counts_from_there(
    monkeypatch, mock_endpoint
):
    ep = mock_endpoint
    sync_on(monkeypatch, DAY1, ep, [row("a", input_tokens=500, output_tokens=40)])
    sync_on(monkeypatch, DAY2, ep, [row("a", input_tokens=100, output_tokens=60)], 2)
    assert totals(ep)[(DAY2, "cli", False, False)] == (0, 20, 0.0)
    sync_on(monkeypatch, DAY3, ep, [row("a", input_tokens=250, output_tokens=60)], 3)
    assert totals(ep)[(DAY3, "cli", False, False)] == (150, 0, 0.0)


def test_a_session_seen_again_after_its_index_row_went_books_only_the_excess(
    monkeypatch, mock_endpoint
):
    ep = mock_endpoint
    sync_on(monkeypatch, DAY1, ep, [row("a", input_tokens=500)])
    store.IndexedSession.objects.filter(session_id="a").delete()  # an index rebuild
    sync_on(monkeypatch, DAY2, ep, [row("a", input_tokens=700)], 2)
    assert totals(ep) == {
        (START_DAY, "cli", True, False): (500, 0, 0.0),
        (DAY2, "cli", False, False): (200, 0, 0.0),
    }


def test_no_start_time_books_history_on_the_sync_day(monkeypatch, mock_endpoint):
    ep = mock_endpoint
    sync_on(monkeypatch, DAY1, ep, [row("a", started_at=None, input_tokens=5)])
    assert totals(ep) == {(DAY1, "cli", True, False): (5, 0, 0.0)}


def test_a_session_with_zero_counters_books_nothing(monkeypatch, mock_endpoint):
    sync_on(monkeypatch, DAY1, mock_endpoint, [row("a"), row("b", input_tokens=0)])
    assert not Booking.objects.exists() and not DayTotal.objects.exists()


def test_a_failing_booking_rolls_back_the_index_rows_so_the_change_is_seen_again(
    monkeypatch, mock_endpoint
):
    from hermes_ui.usage import booking

    ep = mock_endpoint
    sync_on(monkeypatch, DAY1, ep, [row("a", input_tokens=10)])

    def broken(*args, **kwargs):
        raise RuntimeError("database gone")

    monkeypatch.setattr(booking.Booking.objects, "bulk_create", broken)
    with pytest.raises(RuntimeError):
        sync_on(monkeypatch, DAY2, ep, [row("a", input_tokens=30)], 2)
    monkeypatch.undo()
    sync_on(monkeypatch, DAY2, ep, [row("a", input_tokens=30)], 3)
    assert totals(ep)[(DAY2, "cli", False, False)] == (20, 0, 0.0)


def test_sessions_indexed_before_usage_existed_get_their_history_booked_once(
    monkeypatch, mock_endpoint
):
    import importlib

    from django.apps import apps

    from hermes_ui.index.observers import counters_moved
    from hermes_ui.usage import booking

    ep = mock_endpoint
    counters_moved.disconnect(dispatch_uid="usage.book")  # the index before this feature
    try:
        store.upsert(ep, [row("old", input_tokens=900, estimated_cost_usd=0.25)], 1, listed=True)
    finally:
        counters_moved.connect(booking.on_counters_moved, dispatch_uid="usage.book")
    assert not Booking.objects.exists()
    migration = importlib.import_module("hermes_ui.usage.migrations.0002_backfill_history")
    migration.backfill(apps, None)
    assert totals(ep) == {(START_DAY, "cli", True, False): (900, 0, 0.25)}
    # The next sync sees a known row: only growth is booked, on the sync's day.
    sync_on(monkeypatch, DAY2, ep, [row("old", input_tokens=1000, estimated_cost_usd=0.25)], 2)
    assert totals(ep) == {
        (START_DAY, "cli", True, False): (900, 0, 0.25),
        (DAY2, "cli", False, False): (100, 0, 0.0),
    }


def test_two_writers_seeing_one_new_session_at_once_book_its_history_once(
    monkeypatch, mock_endpoint
):
    from datetime import timedelta

    from django.utils import timezone

    from hermes_ui.index.observers import change
    from hermes_ui.usage import booking, clock

    ep = mock_endpoint
    monkeypatch.setattr(clock, "today", lambda: DAY1)
    first = change("a", None, row("a", input_tokens=300))  # what a sync and a page load both see
    now = timezone.now()
    assert booking.book(ep, [first], now) == 1
    assert booking.book(ep, [first], now + timedelta(milliseconds=3)) == 0
    assert Booking.objects.filter(session_id="a").count() == 1
    assert totals(ep) == {(START_DAY, "cli", True, False): (300, 0, 0.0)}
