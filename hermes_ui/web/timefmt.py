"""Timestamps from Hermes (Unix seconds as floats) for people."""

from datetime import UTC, datetime

_UNITS = (
    ("year", 365 * 86400),
    ("month", 30 * 86400),
    ("day", 86400),
    ("hour", 3600),
    ("minute", 60),
)


def to_datetime(ts) -> datetime | None:
    try:
        return datetime.fromtimestamp(float(ts), tz=UTC)
    except (TypeError, ValueError, OverflowError, OSError):
        return None


def relative(ts, now: float | None = None) -> str:
    moment = to_datetime(ts)
    if moment is None:
        return "unknown"
    now_dt = datetime.fromtimestamp(now, tz=UTC) if now else datetime.now(tz=UTC)
    seconds = (now_dt - moment).total_seconds()
    future = seconds < 0
    seconds = abs(seconds)
    if seconds < 45:
        return "just now"
    for name, size in _UNITS:
        if seconds >= size:
            count = int(seconds // size)
            label = f"{count} {name}{'s' if count != 1 else ''}"
            return f"in {label}" if future else f"{label} ago"
    return "just now"


def exact(ts) -> str:
    moment = to_datetime(ts)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC") if moment else "unknown"


def iso(ts) -> str:
    moment = to_datetime(ts)
    return moment.isoformat() if moment else ""
