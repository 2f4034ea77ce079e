"""Benchmark of evaluating a retention rule over 10,000 indexed sessions.

``python manage.py bench --only retention`` seeds its own peer (the bench seed:
10,000 sessions over 90 days, one in five from ``cron``), indexes it, tags
every 10th cron session with a keep tag, puts every 25th in an open review item
and notes every 40th, then evaluates the rule ``source:cron`` older than 30 days
(median of 7) and prints the time, the number of SQL queries and what it
proposes and spares. Target: under 1 s, with a number of queries that does not
grow with the sessions (one per 500 matches and reason, not one per session).
"""

from __future__ import annotations

import secrets
import statistics
import time

TARGET_SECONDS = 1.0


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "retention") as (scratch, peer):
        measure_in_child(stdout, "devtools.bench.retention", scratch, peer)


def _arrange(ep, user) -> dict:
    from hermes_ui.retention.models import KeepTag
    from hermes_ui.review.models import Item, Note, Queue, Rubric
    from hermes_ui.search import queries
    from hermes_ui.tags.models import SessionTag, Tag

    # Among the cron sessions, which the rule reads: every 10th, 25th and 40th is protected.
    ids = list(
        queries.present(ep)
        .filter(source="cron")
        .order_by("pk")
        .values_list("session_id", flat=True)
    )
    keep = Tag.objects.create(name="bench-keep")
    KeepTag.objects.create(tag_name=keep.name, added_by_name="bench")
    SessionTag.objects.bulk_create(
        [SessionTag(**ep.scope(), session_id=sid, tag=keep) for sid in ids[::10]], batch_size=1000
    )
    queue = Queue.objects.create(
        **ep.scope(), name="bench-hold", rubric=Rubric.objects.create(name="bench-retention")
    )
    Item.objects.bulk_create(
        [Item(**ep.scope(), session_id=sid, queue=queue) for sid in ids[::25]], batch_size=1000
    )
    Note.objects.bulk_create(
        [
            Note(**ep.scope(), session_id=sid, author=user, author_name="bench", body="hold")
            for sid in ids[::40]
        ],
        batch_size=1000,
    )
    return {"sessions": queries.present(ep).count()}


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.index import sync
    from hermes_ui.retention import evaluate
    from hermes_ui.retention.models import RetentionRule

    settings.HERMES_INDEX_CONTENT = False  # a rule reads the session table only
    report = sync.sync(ep, full=True)
    say(f"index: {report.rows_seen:,} rows in {report.seconds:.1f} s")
    ensure_user("bench-retention", "admin", secrets.token_urlsafe(16))
    user = get_user_model().objects.get(username="bench-retention")
    arranged = _arrange(ep, user)
    rule = RetentionRule.objects.create(
        **ep.scope(), name="bench cron", query="source:cron", age_days=30, updated_by=user
    )
    times = []
    for _ in range(7):
        started = time.perf_counter()
        found = evaluate.evaluate(ep, rule)
        times.append(time.perf_counter() - started)
    with CaptureQueriesContext(connection) as queries:
        found = evaluate.evaluate(ep, rule)
    median = statistics.median(times)
    say(
        f"rule 'source:cron' older than 30 days over {arranged['sessions']:,} indexed sessions: "
        f"{found.matched:,} matches, {len(found.proposed):,} proposed (at most "
        f"{found.limit} per run), {len(found.protected):,} spared"
    )
    say(
        f"evaluation: {median * 1000:.0f} ms median of 7, {len(queries.captured_queries)} SQL "
        f"queries (target < {TARGET_SECONDS:.0f} s: "
        f"{'met' if median < TARGET_SECONDS else 'NOT met'})"
    )


if __name__ == "__main__":
    _measure()
