"""Writing rows into the index the way a sync does, on a chosen booking day."""

from __future__ import annotations

from datetime import date

from hermes_ui.index import store
from hermes_ui.usage import clock

START = 1_793_000_000.0  # 2026-10-26 (UTC)
START_DAY = date(2026, 10, 26)


def row(session_id: str, *, source="cli", model="m1", started_at=START, **counters) -> dict:
    return {
        "id": session_id,
        "source": source,
        "model": model,
        "started_at": started_at,
        "title": session_id,
        **counters,
    }


def sync_on(monkeypatch, day: date, ep, rows: list[dict], gen: int = 1) -> None:
    """One sync's upsert of ``rows``, booked as if today were ``day``."""
    monkeypatch.setattr(clock, "today", lambda: day)
    store.upsert(ep, rows, gen, listed=True)
