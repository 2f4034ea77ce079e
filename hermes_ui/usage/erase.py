"""A deleted session's usage bookings, erased (``platform.erasers``).

Its ledger rows go. The day totals keep the amounts: they move from the
session's source/model rows to the day's "deleted sessions" row, which keeps
the endpoint, the day and whether the amount was history, but no source or
model: on a quiet day a source/model pair can single out one session.
"""

from __future__ import annotations

from hermes_ui.platform import erasers
from hermes_ui.usage import totals
from hermes_ui.usage.models import Booking


def _bookings(scope, ids: list[str]):
    return Booking.objects.filter(erasers.mine(scope), session_id__in=ids)


def held(scope, ids: list[str]) -> dict[str, int]:
    return {"usage_bookings": _bookings(scope, ids).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    rows = list(_bookings(scope, ids))
    if not rows:
        return {"usage_bookings": 0}

    def out_of_source(row):
        return (row.endpoint, row.endpoint_fp, row.day, row.source, row.model, row.history, False)

    def into_bucket(row):
        return (row.endpoint, row.endpoint_fp, row.day, "", "", row.history, True)

    totals.add(totals.summed(rows, out_of_source, sign=-1))
    totals.add(totals.summed(rows, into_bucket))
    totals.drop_empty(scope.id, {row.endpoint_fp for row in rows}, {row.day for row in rows})
    deleted, _ = _bookings(scope, ids).delete()
    return {"usage_bookings": deleted}
