"""Which sessions a rule proposes, and which it spares and why (reads only the index)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime

from django.conf import settings

from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.retention.models import KeepTag, RetentionRule
from hermes_ui.review import rules as review_rules
from hermes_ui.review.models import Correction, Item, Note
from hermes_ui.search import queries
from hermes_ui.search.forms import IndexQuery
from hermes_ui.tags.models import SessionTag

CHUNK = 500
MAX_MATCHES = 5000  # matches one evaluation reads; beyond, the next run goes on
MAX_CHAIN = 50  # levels of a compression chain followed
WHY = {
    "keep_tag": "tagged with a keep tag",
    "review_item": "in an open review item",
    "note": "has a note newer than the rule's age",
    "correction": "has a correction newer than the rule's age",
    "tip_kept": "its compression chain's live tip is kept",
    "delegate_protected": "a delegate below it is protected (its deletion would cascade)",
}


@dataclass
class Evaluation:
    proposed: list[dict] = field(default_factory=list)  # index rows, newest first
    protected: list[dict] = field(default_factory=list)  # {"id", "why", "detail"}
    matched: int = 0  # matches before protection (at most MAX_MATCHES read)
    truncated: bool = False  # more matched than one run may propose
    limit: int = 0
    seconds: float = 0.0
    queries: int = 0

    @property
    def proposed_ids(self) -> list[str]:
        return [row["id"] for row in self.proposed]

    def by_source(self) -> list[tuple[str, int]]:
        counts: dict[str, int] = {}
        for row in self.proposed:
            counts[row.get("source") or "(none)"] = counts.get(row.get("source") or "(none)", 0) + 1
        return sorted(counts.items(), key=lambda item: (-item[1], item[0]))

    @property
    def oldest(self) -> dict | None:
        return min(self.proposed, key=lambda r: r.get("order_key") or 0, default=None)

    @property
    def newest(self) -> dict | None:
        return max(self.proposed, key=lambda r: r.get("order_key") or 0, default=None)


def problems(text: str) -> list[str]:
    """What is wrong with ``text`` as a rule's search: the queue rules' checks."""
    return review_rules.problems(text)


def cutoff(age_days: int, now: float | None = None) -> float:
    return (now if now is not None else time.time()) - age_days * 86400


def evaluate(ep: Endpoint, rule: RetentionRule, *, now: float | None = None) -> Evaluation:
    started = time.perf_counter()
    before = cutoff(rule.age_days, now)
    form = IndexQuery({"q": rule.query})
    if not form.is_valid() or problems(rule.query):
        return Evaluation()
    query = form.cleaned_data["query"]
    page = queries.search_query(
        ep, query, snapshot=0, user=rule.updated_by, active_before=before, limit=MAX_MATCHES
    )
    rows = page.rows
    ids = [row["id"] for row in rows]
    since = datetime.fromtimestamp(before, tz=UTC)
    why = direct_protection(ep, ids, since)
    why.update(_chains(ep, rows, why))
    why.update(_delegates(ep, ids, why, since))
    limit = settings.HERMES_BULK_LIMIT
    free = [row for row in rows if row["id"] not in why]
    found = Evaluation(
        proposed=free[:limit],
        protected=[
            {"id": sid, "why": code, "detail": WHY[code]}
            for sid, code in why.items()
            if sid in set(ids)
        ],
        matched=page.total,
        truncated=len(free) > limit or page.total > len(rows),
        limit=limit,
    )
    found.seconds = time.perf_counter() - started
    return found


def _chunks(ids: list[str]):
    for start in range(0, len(ids), CHUNK):
        yield ids[start : start + CHUNK]


def direct_protection(ep: Endpoint, ids: list[str], since: datetime) -> dict[str, str]:
    """Session id -> the first reason it is protected for, of the direct reasons."""
    why: dict[str, str] = {}
    keep = list(KeepTag.objects.values_list("tag_id", flat=True))
    scope = ep.scope()
    for chunk in _chunks(ids):
        if keep:
            tagged = SessionTag.objects.filter(
                **scope, session_id__in=chunk, tag_id__in=keep
            ).values_list("session_id", flat=True)
            for sid in tagged:
                why.setdefault(sid, "keep_tag")
        open_items = (
            Item.objects.filter(**scope, session_id__in=chunk, queue__archived=False)
            .exclude(state__in=(Item.COMPLETED, Item.SKIPPED))
            .values_list("session_id", flat=True)
        )
        for sid in open_items:
            why.setdefault(sid, "review_item")
        for sid in Note.objects.filter(
            **scope, session_id__in=chunk, created_at__gte=since
        ).values_list("session_id", flat=True):
            why.setdefault(sid, "note")
        for sid in Correction.objects.filter(
            **scope, session_id__in=chunk, updated_at__gte=since
        ).values_list("session_id", flat=True):
            why.setdefault(sid, "correction")
    return why


def _children(ep: Endpoint, parents: list[str], kind: str) -> list[dict]:
    found = []
    for chunk in _chunks(parents):
        found += (
            queries.present(ep)
            .filter(parent_session_id__in=chunk, kind=kind)
            .values("session_id", "parent_session_id")
        )
    return found


def _chains(ep: Endpoint, rows: list[dict], why: dict[str, str]) -> dict[str, str]:
    """Members of a compression chain whose live tip is kept: the tip not among the
    matches, or protected itself."""
    matched = {row["id"] for row in rows}
    chained = [row["id"] for row in rows if row.get("end_reason") == "compression"]
    if not chained:
        return {}
    # Walk down each chain from every compressed match to its live tip.
    below: dict[str, str] = {}  # continuation -> its parent
    frontier = chained
    for _ in range(MAX_CHAIN):
        children = _children(ep, frontier, "continuation")
        if not children:
            break
        for child in children:
            below[child["session_id"]] = child["parent_session_id"]
        frontier = [child["session_id"] for child in children]
    parents = set(below.values())
    tips = [sid for sid in below if sid not in parents]
    spared: dict[str, str] = {}
    for tip in tips:
        if tip in matched and tip not in why:
            continue  # the tip goes too: the whole chain may
        node = below.get(tip)
        while node is not None:
            if node in matched:
                spared.setdefault(node, "tip_kept")
            node = below.get(node)
    return spared


def _delegates(
    ep: Endpoint, ids: list[str], why: dict[str, str], since: datetime
) -> dict[str, str]:
    """Matches with a protected delegate anywhere below them."""
    protected = set(why)
    parent_of: dict[str, str] = {}
    frontier = ids
    for _ in range(MAX_CHAIN):
        children = _children(ep, frontier, "delegate")
        if not children:
            break
        for child in children:
            parent_of.setdefault(child["session_id"], child["parent_session_id"])
        frontier = [child["session_id"] for child in children]
    # Protection of descendants that were not matches themselves.
    outside = [sid for sid in parent_of if sid not in set(ids)]
    if outside:
        protected |= set(direct_protection(ep, outside, since))
    spared: dict[str, str] = {}
    for sid in protected:
        node = parent_of.get(sid)
        while node is not None:
            spared.setdefault(node, "delegate_protected")
            node = parent_of.get(node)
    return spared
