"""Adding amounts to ``DayTotal`` rows: one upsert per key, summed in the database.

``INSERT ... ON CONFLICT DO UPDATE SET x = x + excluded.x`` is the same
statement on SQLite and PostgreSQL, so two writers (a sync and a page load
refreshing one session) adding to one day never lose an amount.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable

from django.db import connection

from hermes_ui.hermes.contract import USAGE_COUNTERS as AMOUNTS
from hermes_ui.usage.models import DayTotal

KEY = ("endpoint", "endpoint_fp", "day", "source", "model", "history", "deleted")


def add(sums: dict[tuple, list]) -> None:
    """``sums``: key (as ``KEY``) -> amounts (as ``AMOUNTS``), added to the stored totals."""
    if not sums:
        return
    q = connection.ops.quote_name
    table = q(DayTotal._meta.db_table)
    columns = [*KEY, *AMOUNTS]
    names = ", ".join(q(c) for c in columns)
    marks = ", ".join(["%s"] * len(columns))
    conflict = ", ".join(q(c) for c in KEY)
    updates = ", ".join(f"{q(a)} = {table}.{q(a)} + excluded.{q(a)}" for a in AMOUNTS)
    # Every name is a model field's, quoted; the values are parameters.
    sql = (
        f"INSERT INTO {table} ({names}) VALUES ({marks}) "  # noqa: S608
        f"ON CONFLICT ({conflict}) DO UPDATE SET {updates}"
    )
    day = KEY.index("day")
    params = []
    for key, amounts in sums.items():
        row = [*key, *amounts]
        row[day] = connection.ops.adapt_datefield_value(row[day])  # each backend's own form
        params.append(row)
    with connection.cursor() as cursor:
        cursor.executemany(sql, params)


def summed(rows: Iterable, key, sign: int = 1) -> dict[tuple, list]:
    """Amounts of ``rows`` (objects with ``AMOUNTS``) summed per ``key(row)``."""
    sums: dict[tuple, list] = defaultdict(lambda: [0] * len(AMOUNTS))
    for row in rows:
        target = sums[key(row)]
        for i, name in enumerate(AMOUNTS):
            target[i] += sign * getattr(row, name)
    return dict(sums)


def drop_empty(endpoint: str, fingerprints: Iterable[str], days: Iterable) -> None:
    """Per-source rows an erasure brought back to zero go (the deleted bucket stays)."""
    DayTotal.objects.filter(
        endpoint=endpoint,
        endpoint_fp__in=list(fingerprints),
        day__in=list(days),
        deleted=False,
        input_tokens=0,
        output_tokens=0,
        cache_read_tokens=0,
        cache_write_tokens=0,
        reasoning_tokens=0,
        estimated_cost_usd__range=(-1e-9, 1e-9),
        actual_cost_usd__range=(-1e-9, 1e-9),
    ).delete()
