"""Review badges on index rows and lineage nodes: progress, and the session's choice labels."""

from __future__ import annotations

from collections import defaultdict

from django.db.models import Count, Q

from hermes_ui.review import consensus
from hermes_ui.review.models import Item
from hermes_ui.search.badges import Badge

MAX_LABELS = 2
SHOWN_TYPES = ("choice", "bool")
OPEN = (Item.NEEDS_REVIEW, Item.NEEDS_OTHERS)


def read(ep, session_ids: list[str], user, rows=None) -> dict[str, list[Badge]]:
    found: dict[str, list[Badge]] = defaultdict(list)
    progress, queued = _progress(ep, session_ids)
    for session_id, badge in progress.items():
        found[session_id].append(badge)
    if queued:  # a label belongs to a review of an item: no item, no label
        for session_id, marks in _labels(ep, sorted(queued)).items():
            found[session_id].extend(marks)
    return dict(found)


def _progress(ep, ids: list[str]) -> tuple[dict[str, Badge], set[str]]:
    """The progress badges, and every session with an item (skipped ones too)."""
    rows = (
        consensus.items(ep)
        .filter(session_id__in=ids)
        .values("session_id", "state", "queue__reviews_needed")
        .annotate(done=Count("reviews", filter=Q(reviews__done=True)))
    )
    best: dict[str, tuple] = {}
    queued: set[str] = set()
    for row in rows:
        queued.add(row["session_id"])
        if row["state"] == Item.COMPLETED:
            rank = (2, 0, 0)
        elif row["state"] in OPEN:
            rank = (1, row["done"], row["queue__reviews_needed"])
        else:
            continue  # skipped
        best[row["session_id"]] = max(best.get(row["session_id"], rank), rank)
    badges = {}
    for session_id, (level, done, needed) in best.items():
        if level == 2:
            badges[session_id] = Badge("reviewed", "Review completed", "green", "review")
        else:
            title = f"In a review queue: {done} of {needed} reviews done"
            badges[session_id] = Badge(f"reviewing {done}/{needed}", title, "blue", "review")
    return badges, queued


def _labels(ep, ids: list[str]) -> dict[str, list[Badge]]:
    rows = (
        consensus.labels(ep)
        .filter(session_id__in=ids, message_id__isnull=True)
        .values("session_id", "field", "value", "review__authoritative", "review__version__fields")
        .order_by("session_id", "field", "review_id")
    )
    given: dict[tuple[str, str], list] = defaultdict(list)
    names: dict[tuple[str, str], tuple[int, str]] = {}  # (place in the rubric, label)
    for row in rows:
        place, spec = _field(row["review__version__fields"], row["field"])
        if spec is None or spec.get("type") not in SHOWN_TYPES:
            continue
        key = (row["session_id"], row["field"])
        given[key].append((row["value"], row["review__authoritative"]))
        names[key] = (place, str(spec.get("label") or row["field"]))
    badges: dict[str, list[Badge]] = defaultdict(list)
    for key in sorted(given, key=lambda k: (k[0], names[k])):
        session_id, pairs = key[0], given[key]
        value = consensus.resolve(pairs)
        if value is None or len(badges[session_id]) >= MAX_LABELS:
            continue
        how = "authoritative review" if any(a for _, a in pairs) else f"{len(pairs)} review(s)"
        name = names[key][1]
        badges[session_id].append(
            Badge(f"{name}: {value}"[:60], f"Review label, from {how}", "purple", "label")
        )
    return badges


def _field(fields, key: str) -> tuple[int, dict | None]:
    for place, spec in enumerate(fields if isinstance(fields, list) else []):
        if isinstance(spec, dict) and spec.get("key") == key:
            return place, spec
    return 0, None
