"""Erasure of a session's usage: its ledger rows go, the day totals keep the amounts."""

from datetime import date

import pytest

from hermes_ui.deletion import erasers, erasure
from hermes_ui.usage.models import Booking, DayTotal
from tests.usage.helpers import START_DAY, row, sync_on

pytestmark = pytest.mark.django_db
DAY = date(2026, 11, 21)


def test_erasure_moves_a_sessions_amounts_into_the_deleted_bucket_without_its_id(
    monkeypatch, mock_endpoint
):
    ep = mock_endpoint
    sync_on(
        monkeypatch,
        DAY,
        ep,
        [row("gone", input_tokens=100, estimated_cost_usd=0.5), row("kept", input_tokens=7)],
    )
    sync_on(monkeypatch, DAY, ep, [row("gone", input_tokens=160, estimated_cost_usd=0.75)], 2)
    assert "usage_bookings" in erasers.kinds()
    counts = erasure.erase(ep, ["gone"])
    assert counts["usage_bookings"] == 2
    assert not Booking.objects.filter(session_id="gone").exists()
    assert Booking.objects.filter(session_id="kept").count() == 1
    left = {
        (t.day, t.source, t.history, t.deleted): (t.input_tokens, round(t.estimated_cost_usd, 6))
        for t in DayTotal.objects.all()
    }
    assert left == {
        (START_DAY, "cli", True, False): (7, 0.0),  # "kept" only; gone's share moved out
        (START_DAY, "", True, True): (100, 0.5),  # gone's history, no source, no model
        (DAY, "", False, True): (60, 0.25),  # gone's growth seen on DAY
    }
    # Erasing again finds nothing and changes nothing.
    assert erasure.erase(ep, ["gone"])["usage_bookings"] == 0
    assert DayTotal.objects.filter(deleted=True).count() == 2
