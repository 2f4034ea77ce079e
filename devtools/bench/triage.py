"""Benchmark of the index filtered by tags and "new since I looked" at 10,000 sessions.

``python manage.py bench --only triage`` seeds its own peer (the bench seed:
10,000 sessions plus a 500-node lineage), then measures in a child process
with a scratch database: the index page (full HTML, first page of 50) with
``tag:`` and ``new:yes`` filters, against one raw ``GET /api/sessions``
(one page, the default limit, through the dashboard's own Hermes client)
in the same run, taken in turn, median of 11 each; and prints SQLite's plan
of the filtered query, to show which indexes it uses. For scale it also
prints, the same way, the cheapest page the dashboard has (the empty
mentions page: login, middleware, the layout and one query) and the index
page with no filter: what no filter implementation can go below.

Arranged data: one tag on every 10th indexed session, another on every
100th; the reader has opened every 4th (a watermark each), and half of
those have grown since (their watermark is one message behind).
"""

from __future__ import annotations

import secrets
import time

TARGET = 0.25


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "triage") as (scratch, peer):
        measure_in_child(stdout, "devtools.bench.triage", scratch, peer)


def _arrange(ep, user) -> dict:
    from django.utils import timezone

    from hermes_ui.search import queries
    from hermes_ui.tags.models import SessionTag, Tag
    from hermes_ui.watermarks.models import Watermark

    rows = list(queries.present(ep).order_by("pk").values_list("session_id", "message_count"))
    wide, rare = Tag.objects.create(name="bench-wide"), Tag.objects.create(name="bench-rare")
    tags = [
        SessionTag(**ep.scope(), session_id=sid, tag=tag)
        for n, (sid, _) in enumerate(rows)
        for tag, every in ((wide, 10), (rare, 100))
        if n % every == 0
    ]
    SessionTag.objects.bulk_create(tags, batch_size=1000)
    now = timezone.now()
    marks = [
        Watermark(
            user=user,
            **ep.scope(),
            session_id=sid,
            message_count=(count or 0) - (1 if n % 8 == 0 else 0),
            seen_at=now,
        )
        for n, (sid, count) in enumerate(rows)
        if n % 4 == 0
    ]
    Watermark.objects.bulk_create(marks, batch_size=1000)
    return {"rows": len(rows), "tags": len(tags), "watermarks": len(marks)}


def _paired(ours, hermes, times: int = 11) -> tuple[float, float]:
    """Medians (ms) of our page and of one raw list call, measured alternately."""
    import statistics

    mine, theirs = [], []
    for _ in range(times):
        for action, samples in ((ours, mine), (hermes.list_sessions, theirs)):
            started = time.perf_counter()
            action()
            samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(mine), statistics.median(theirs)


def _plan(ep, user, q: str) -> str:
    """SQLite's plan of the first page's query for ``q`` (its SEARCH/SCAN steps)."""
    from django.db import connection

    from hermes_ui.search import queries
    from hermes_ui.search import syntax as query_syntax

    query = query_syntax.parse(q)
    rows = queries.feature_filters.restrict(queries.present(ep), ep, query.facets, user)
    sql, params = (
        rows.order_by("-order_key", "-pk").values("session_id")[:51].query.sql_with_params()
    )
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN QUERY PLAN {sql}", params)
        steps = [row[-1] for row in cursor.fetchall()]
    return "; ".join(steps)


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.hermes import client_for
    from hermes_ui.index import sync

    settings.HERMES_INDEX_CONTENT = False  # these filters read the session table only
    report = sync.sync(ep, full=True)
    say(f"index: {report.rows_seen:,} rows in {report.seconds:.1f} s")
    ensure_user("bench-triage", "reviewer", secrets.token_urlsafe(16))
    user = get_user_model().objects.get(username="bench-triage")
    arranged = _arrange(ep, user)
    say(
        f"arranged: {arranged['tags']:,} session tags, {arranged['watermarks']:,} watermarks "
        f"over {arranged['rows']:,} indexed sessions"
    )
    client = Client()
    client.force_login(user)
    hermes = client_for(ep)
    say(
        "each figure: median of 11, our page and the raw call taken in turn (the machine's "
        "load changes both alike); raw call = GET /api/sessions, default limit 50, via the client"
    )
    floor_ours, floor_raw = _paired(lambda: client.get("/mentions/"), hermes)
    say(
        f"floor, a page with the layout and one query (/mentions/, empty): {floor_ours:.1f} ms "
        f"vs {floor_raw:.1f} ms, ratio {floor_ours / floor_raw:.2f}"
    )
    plain_ours, plain_raw = _paired(
        lambda: client.get("/e/bench/sessions/", {"view": "all"}), hermes
    )
    say(
        f"for scale, the unfiltered index page (same HTML, no feature filter): {plain_ours:.1f} ms "
        f"vs {plain_raw:.1f} ms, ratio {plain_ours / plain_raw:.2f}"
    )
    for q in ("tag:bench-wide new:yes", "tag:bench-rare", "new:yes", "-tag:bench-wide new:no"):
        answer = client.get("/e/bench/sessions/", {"q": q})
        assert answer.status_code == 200, answer.status_code
        total = answer.content.decode().split(" matching session", 1)[0].rsplit(">", 1)[-1]
        ours, raw = _paired(lambda q=q: client.get("/e/bench/sessions/", {"q": q}), hermes)
        say(
            f"index page {q!r} ({total.strip()} matching, first 50 shown): {ours:.1f} ms vs "
            f"{raw:.1f} ms; ratio {ours / raw:.2f} "
            f"(target <= {TARGET}: {'met' if ours <= TARGET * raw else 'NOT met'})"
        )
    for q in ("tag:bench-wide new:yes", "tag:bench-rare"):
        say(f"SQLite plan for {q!r}: {_plan(ep, user, q)}")


if __name__ == "__main__":
    _measure()
