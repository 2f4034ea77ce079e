"""Erasing the dashboard's own copies of sessions Hermes deleted."""

from __future__ import annotations

from django.db import transaction

from hermes_ui.deletion import erasers
from hermes_ui.platform import erasers as helpers
from hermes_ui.platform import sqlite_wipe
from hermes_ui.platform.endpoints import Endpoint


def local_copies(ep: Endpoint, ids) -> dict[str, int]:
    """What the database holds about these sessions now (nothing is erased)."""
    ids = sorted(set(ids))
    held: dict[str, int] = {}
    for eraser in erasers.all_erasers():
        held.update(eraser.count(ep, ids))
    return held


def erase(ep: Endpoint, ids, *, related=()) -> dict[str, int]:
    """Erase every local copy of ``ids`` (sessions Hermes deleted); counts per kind.

    ``related`` are ids whose cached transcript may show a deleted one (a
    compression root resolves to its tip): only erasers with
    ``related=True`` (caches of what a page shows) get them too.
    Idempotent: a second call finds nothing and returns zeros.
    """
    ids = sorted(set(ids))
    counts = dict.fromkeys(erasers.kinds(), 0)
    if not ids:
        return counts
    with_related = sorted({*ids, *related})
    later = []  # type: ignore[var-annotated]  # (eraser, step) in the order they were given

    def add(eraser: erasers.Eraser, found: dict[str, int] | None) -> None:
        for kind, n in (found or {}).items():
            if kind not in eraser.kinds:
                raise ValueError(f"eraser {eraser.name!r} counted {kind!r}, not one of its kinds")
            counts[kind] += n

    with helpers.collecting() as steps, transaction.atomic():
        for eraser in erasers.all_erasers():
            add(eraser, eraser.run(ep, with_related if eraser.related else ids))
            later += [(eraser, step) for step in steps[len(later) :]]
    # Committed: the copies outside the database, and what needs no transaction.
    for eraser, step in later:
        add(eraser, step())
    sqlite_wipe.checkpoint()
    return counts
