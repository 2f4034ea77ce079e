"""Book the history of sessions the index already held when usage was installed.

Booking starts at a session's first sighting, so sessions indexed before
this feature existed would never have their past booked. This books each
present index row's counters on its start day, flagged history, exactly as
a first sighting would (``usage.booking``), in chunks.
"""

from datetime import UTC, datetime

from django.db import migrations
from django.utils import timezone

AMOUNTS = (
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "estimated_cost_usd",
    "actual_cost_usd",
)
CHUNK = 2000


def _day(started_at, today):
    try:
        return datetime.fromtimestamp(float(started_at), UTC).date()
    except (OverflowError, OSError, ValueError, TypeError):
        return today


def backfill(apps, schema_editor):
    IndexedSession = apps.get_model("index", "IndexedSession")
    Booking = apps.get_model("usage", "Booking")
    DayTotal = apps.get_model("usage", "DayTotal")
    now = timezone.now()
    today = now.astimezone(UTC).date()
    fields = ("endpoint", "endpoint_fp", "session_id", "source", "model", "started_at", *AMOUNTS)
    rows = IndexedSession.objects.filter(vanished_at__isnull=True).values(*fields)
    sums: dict = {}
    batch = []
    for row in rows.iterator(chunk_size=CHUNK):
        amounts = {name: max(row[name] or 0, 0) for name in AMOUNTS}
        if not any(amounts.values()):
            continue
        day = _day(row["started_at"], today) if row["started_at"] is not None else today
        batch.append(
            Booking(
                endpoint=row["endpoint"],
                endpoint_fp=row["endpoint_fp"],
                session_id=row["session_id"],
                day=day,
                history=True,
                source=row["source"],
                model=row["model"],
                booked_at=now,
                **amounts,
            )
        )
        key = (row["endpoint"], row["endpoint_fp"], day, row["source"], row["model"])
        total = sums.setdefault(key, dict.fromkeys(AMOUNTS, 0))
        for name in AMOUNTS:
            total[name] += amounts[name]
        if len(batch) >= CHUNK:
            Booking.objects.bulk_create(batch)
            batch = []
    Booking.objects.bulk_create(batch)
    DayTotal.objects.bulk_create(
        [
            DayTotal(
                endpoint=endpoint,
                endpoint_fp=fp,
                day=day,
                source=source,
                model=model,
                history=True,
                deleted=False,
                **amounts,
            )
            for (endpoint, fp, day, source, model), amounts in sums.items()
        ],
        batch_size=500,
    )


class Migration(migrations.Migration):
    dependencies = [
        ("usage", "0001_initial"),
        ("index", "0006_search_order_index"),
    ]

    # Going back leaves the bookings: they cannot be told from ones a sync made.
    operations = [migrations.RunPython(backfill, migrations.RunPython.noop)]
