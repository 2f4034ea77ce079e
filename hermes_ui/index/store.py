"""Writing API rows into the index: add, change, vanish, visibility, kinds.

Each function writes one batch in one short transaction, so a page load
waiting for the database never waits behind a whole sync.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from hermes_ui.index import observers
from hermes_ui.index import rows as r
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.index.models import IndexedSession
from hermes_ui.lineage.graph.classify import kinds_of
from hermes_ui.platform.endpoints import Endpoint

ID_MAX_LENGTH = IndexedSession._meta.get_field("session_id").max_length
_COPY = (*r.API_FIELDS, *r.FLAG_FIELDS, "order_key", "digest")
_UPDATED = (*_COPY, "listed", "vanished_at", "changed_gen", "former_parent_id", "last_seen_at")


@dataclass
class Counts:
    added: int = 0
    changed: int = 0
    vanished: int = 0
    reappeared: int = 0
    visibility: int = 0
    kinds: int = 0

    @property
    def any(self) -> bool:
        return bool(
            self.added
            + self.changed
            + self.vanished
            + self.reappeared
            + self.visibility
            + self.kinds
        )

    def add(self, other: Counts) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


def storable_id(value) -> bool:
    """An id the ``session_id`` column can hold on every database (PostgreSQL
    enforces its length and refuses NUL; SQLite would store anything)."""
    return isinstance(value, str) and 0 < len(value) <= ID_MAX_LENGTH and "\x00" not in value  # type: ignore[operator]


def upsert(
    ep: Endpoint, api_rows: list[dict], gen: int, *, listed: bool | None, touch: bool = True
) -> Counts:
    """Add or update rows; ``listed`` None keeps what the index knew.

    ``touch`` stamps "last seen" on unchanged rows too. Without it, and with
    nothing changed, nothing is written at all: a page load that re-reads one
    session then never waits for SQLite's write lock.
    """
    counts = Counts()
    valid = {row["id"]: row for row in api_rows if storable_id(row.get("id"))}
    if not valid:
        return counts
    now = timezone.now()
    existing = {
        o.session_id: o
        for o in IndexedSession.objects.filter(**ep.scope(), session_id__in=list(valid))
    }
    create, update, unchanged = [], [], []
    moved: list[observers.CounterChange] = []  # usage counters, for ``observers``
    for session_id, row in valid.items():
        old = existing.get(session_id)
        if old is None:
            cols = r.columns(row)
            moved.append(observers.change(session_id, None, cols))  # type: ignore[arg-type]
            create.append(
                IndexedSession(
                    **ep.scope(),
                    session_id=session_id,
                    **cols,
                    listed=listed is not False,
                    first_seen_at=now,
                    last_seen_at=now,
                    changed_gen=gen,
                )
            )
            counts.added += 1
            continue
        cols = r.columns(
            row, {name: getattr(old, name) for name in (*r.API_FIELDS, *r.FLAG_FIELDS)}
        )
        reappeared = old.vanished_at is not None
        changed = cols["digest"] != old.digest or reappeared
        changed |= listed is not None and old.listed != listed
        if not changed:
            unchanged.append(old.pk)
            continue
        if old.parent_session_id and not cols["parent_session_id"]:
            # The provider clears the parent of a deleted session's branches
            # and continuations: remember who it was.
            old.former_parent_id = old.parent_session_id
        if found := observers.change(session_id, observers.counters(old), cols):
            moved.append(found)
        for name in _COPY:
            setattr(old, name, cols[name])
        if listed is not None:
            old.listed = listed
        old.vanished_at, old.changed_gen, old.last_seen_at = None, gen, now
        counts.reappeared += reappeared
        counts.changed += not reappeared
        update.append(old)
    if not (create or update or (touch and unchanged)):
        return counts
    with transaction.atomic():
        # Another writer (the refresher, a page load) may add the same new row
        # at the same moment; both hold the provider's values, so either wins.
        IndexedSession.objects.bulk_create(create, batch_size=500, ignore_conflicts=True)
        # One UPDATE per changed row: Django's bulk_update builds a CASE per
        # column and row, which costs far more than SQLite's plain updates.
        for row in update:  # type: ignore[assignment]
            row.save(update_fields=_UPDATED)  # type: ignore[attr-defined]
        if touch and unchanged:
            IndexedSession.objects.filter(pk__in=unchanged).update(last_seen_at=now)
        observers.notify(ep, moved, now)
    return counts


def vanish(ep: Endpoint, session_ids: list[str], gen: int) -> int:
    with transaction.atomic():
        return IndexedSession.objects.filter(
            **ep.scope(), session_id__in=session_ids, vanished_at__isnull=True
        ).update(vanished_at=timezone.now(), changed_gen=gen)


def set_visible(ep: Endpoint, shown: dict[str, str], tips: dict[str, str], gen: int) -> int:
    """Mark ``shown`` (visible id -> id it is listed as) visible; note tips' roots."""
    present = IndexedSession.objects.filter(**ep.scope())
    changed = 0
    with transaction.atomic():
        as_itself = [sid for sid, listed_as in shown.items() if sid == listed_as]
        changed += (
            present.filter(session_id__in=as_itself)
            .exclude(visible_in_default_list=True, default_list_id=F("session_id"))
            .update(visible_in_default_list=True, default_list_id=F("session_id"), changed_gen=gen)
        )
        # Projected compression roots and their tips: a few per page at most.
        for root, tip in shown.items():
            if root != tip:
                changed += (
                    present.filter(session_id=root)
                    .exclude(visible_in_default_list=True, default_list_id=tip)
                    .update(visible_in_default_list=True, default_list_id=tip, changed_gen=gen)
                )
        for tip, root in tips.items():
            changed += (
                present.filter(session_id=tip)
                .exclude(lineage_root_id=root)
                .update(lineage_root_id=root, changed_gen=gen)
            )
    return changed


def hide_unseen(ep: Endpoint, seen_visible: set[str], gen: int) -> int:
    """After a complete pass over the default list: everything else is hidden."""
    stale = [
        session_id
        for session_id in IndexedSession.objects.filter(
            **ep.scope(), visible_in_default_list=True
        ).values_list("session_id", flat=True)
        if session_id not in seen_visible
    ]
    changed = 0
    for start in range(0, len(stale), 500):
        with transaction.atomic():
            changed += IndexedSession.objects.filter(
                **ep.scope(), session_id__in=stale[start : start + 500]
            ).update(visible_in_default_list=False, default_list_id="", changed_gen=gen)
    return changed


_DERIVE_FIELDS = (
    "pk",
    "session_id",
    "parent_session_id",
    "end_reason",
    "ended_at",
    "started_at",
    "source",
    "visible_in_default_list",
    "former_parent_id",
    "kind",
    "child_count",
)


def derive(ep: Endpoint, gen: int, only: set[str] | None = None) -> int:
    """Recompute kinds and child counts; ``only``: just around these ids.

    A row's kind depends on its parent, so ``only`` covers the given rows,
    their parents and their children (current and former).
    """
    present = IndexedSession.objects.filter(**ep.scope(), vanished_at__isnull=True)
    if only is None:
        rows = list(present.values(*_DERIVE_FIELDS))
        targets = {row["session_id"] for row in rows}
    else:
        near = list(
            present.filter(
                Q(session_id__in=only)
                | Q(parent_session_id__in=only)
                | Q(former_parent_id__in=only)
            ).values(*_DERIVE_FIELDS)
        )
        targets = {row["session_id"] for row in near}
        targets |= {row["parent_session_id"] for row in near if row["parent_session_id"]}
        rows = list(
            present.filter(
                Q(session_id__in=targets)
                | Q(
                    session_id__in=present.filter(session_id__in=targets).values(
                        "parent_session_id"
                    )
                )
            ).values(*_DERIVE_FIELDS)
        )
    by_id = {row["session_id"]: row for row in rows}
    formers = {row["former_parent_id"] for row in rows if row["former_parent_id"]}
    still_there = set(present.filter(session_id__in=formers).values_list("session_id", flat=True))
    api_rows = [
        {
            **row,
            "id": row["session_id"],
            "parent_session_id": row["parent_session_id"] or None,
            "end_reason": row["end_reason"] or None,
        }
        for row in rows
    ]
    kinds = kinds_of(api_rows, forked_ids=forked_child_ids(ep), known_gone=formers - still_there)
    counts = (
        dict(
            present.filter(parent_session_id__in=targets)
            .values("parent_session_id")
            .annotate(n=Count("pk"))
            .values_list("parent_session_id", "n")
        )
        if only is not None
        else _child_counts(rows)
    )
    # Grouped by new value: a handful of UPDATEs, whatever the row count.
    stale: dict[tuple[str, int], list[int]] = {}
    for session_id in targets:
        row = by_id.get(session_id)
        if row is None:
            continue
        kind, count = kinds[session_id], counts.get(session_id, 0)
        if (kind, count) != (row["kind"], row["child_count"]):
            stale.setdefault((kind, count), []).append(row["pk"])
    for (kind, count), pks in stale.items():
        for start in range(0, len(pks), 500):
            with transaction.atomic():
                IndexedSession.objects.filter(pk__in=pks[start : start + 500]).update(
                    kind=kind, child_count=count, changed_gen=gen
                )
    return sum(len(pks) for pks in stale.values())


def _child_counts(rows: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for row in rows:
        parent = row["parent_session_id"]
        if parent:
            counts[parent] = counts.get(parent, 0) + 1
    return counts
