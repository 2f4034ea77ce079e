"""The booking day: the UTC day of a sync (one function, so tests can move "today")."""

from __future__ import annotations

from datetime import UTC, date, datetime


def today() -> date:
    return datetime.now(UTC).date()


def day_of(timestamp: float | None) -> date | None:
    """The UTC day of a Hermes timestamp (seconds), None when it is not one."""
    if timestamp is None:
        return None
    try:
        return datetime.fromtimestamp(float(timestamp), UTC).date()
    except (OverflowError, OSError, ValueError, TypeError):
        return None
