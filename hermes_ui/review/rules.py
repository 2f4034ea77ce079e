"""Rules: a queue's saved index search, run after each index refresh, adding sessions.

A rule's ``query`` is written in the search box's syntax and matches as the
index table and "select all matching" do (ids, titles and previews, the
session filters, feature filters such as ``label:``). Message filters
(``role:``, ``after:``, ``before:``) narrow transcript hits, not sessions,
so a rule refuses them. Every match of ``always`` is added; of the other
matches of ``query``, ``percent`` per cent are, chosen by a hash of (rule id,
session id): a session left out stays out on every later run, and one
taken is never added twice (the item table's unique constraints and a check
of what the queue already holds).

Rules read only the index, never Hermes: a run is a few queries, so "Run
now" runs in the request. After each sync of an endpoint the index round
enqueues a task that runs every active rule of it (``rules_task``).
"""

from __future__ import annotations

import hashlib

from django.db import transaction
from django.utils import timezone

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.index import queries
from hermes_ui.index.forms import IndexQuery
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.review.models import Item, Rule

MAX_MATCHES = 5000  # sessions one search of a rule may add in one run
_MESSAGE_FILTERS = ("role", "after", "before")


def problems(text: str) -> list[str]:
    """What is wrong with ``text`` as a rule's search (empty: nothing)."""
    form = IndexQuery({"q": text})
    if not form.is_valid():
        return [str(m) for errors in form.errors.values() for m in errors]
    query = form.cleaned_data["query"]
    used = [name for name in _MESSAGE_FILTERS if getattr(query, name)]
    if used:
        names = ", ".join(f"{name}:" for name in used)
        return [f"{names} filter messages, not sessions; a rule cannot use them."]
    if not (query.plain_text or query.has_filters):
        return ["An empty search matches every session; add words or filters."]
    return []


def notes(text: str) -> list:
    """The unknown ``name:value`` parts of ``text`` searched as words (``query_syntax.Note``)."""
    form = IndexQuery({"q": text})
    return form.cleaned_data["query"].notes if form.is_valid() else []


def matches(ep: Endpoint, text: str, user=None) -> list[str]:
    """The ids of present sessions that ``text`` matches, newest first (at most MAX_MATCHES)."""
    form = IndexQuery({"q": text})
    if not form.is_valid():
        return []
    query = form.cleaned_data["query"]
    page = queries.search_query(ep, query, snapshot=0, user=user, limit=MAX_MATCHES)
    return [row["id"] for row in page.rows]


def sampled(rule_id: int, session_id: str, percent: int) -> bool:
    """Whether the rule takes this session: the same answer on every run."""
    digest = hashlib.sha256(f"{rule_id}:{session_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % 10_000 < percent * 100


def chosen(ep: Endpoint, rule: Rule) -> list[str]:
    always = matches(ep, rule.always, rule.created_by) if rule.always else []
    taken = set(always)
    rest = [
        sid
        for sid in matches(ep, rule.query, rule.created_by)
        if sid not in taken and sampled(rule.pk, sid, rule.percent)
    ]
    return list(dict.fromkeys([*always, *rest]))


def run(ep: Endpoint, rule: Rule, user=None) -> int:
    """Add what the rule chooses and the queue lacks; record the run. Returns how many."""
    queue = rule.queue
    wanted = chosen(ep, rule)
    with transaction.atomic():
        held = set(queue.items.filter(message_id__isnull=True).values_list("session_id", flat=True))
        new = [
            Item(
                **ep.scope(),
                session_id=sid,
                queue=queue,
                added_via="rule",
                rule=rule,
                added_by=user,
            )
            for sid in wanted
            if sid not in held
        ]
        before = queue.items.count()
        Item.objects.bulk_create(new, ignore_conflicts=True, batch_size=500)
        added = queue.items.count() - before
        Rule.objects.filter(pk=rule.pk).update(last_run_at=timezone.now(), last_added=added)
    if added or user is not None:
        trail.record(
            user,
            capability="review.rule_run",
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            evidence={"id": rule.pk, "count": added, "kind": "manual" if user else "refresh"},
        )
    return added


def active(ep: Endpoint):
    return Rule.objects.filter(
        active=True,
        queue__archived=False,
        queue__endpoint=ep.id,
        queue__endpoint_fp__in=[ep.fingerprint, ""],
    ).select_related("queue", "created_by")


def run_endpoint(ep: Endpoint) -> int:
    """Every active rule of ``ep``'s queues, once (the worker, after a sync)."""
    return sum(run(ep, rule) for rule in active(ep))
