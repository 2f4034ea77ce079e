"""Benchmark of transcript search on a 10,000-session / 100k-message peer.

``python manage.py bench --only search`` seeds its own peer (the bench seed:
10,000 sessions x 10 messages plus a 500-node lineage), starts Hermes' own
dashboard (``hermes_cli.web_server.start_server``) over a copy of that home,
and measures in a child process with a scratch database:

- the content search page (full HTML) against the dashboard's
  ``/api/sessions/search?q=…`` for the same query, median of 7 each;
- the full content build against one raw ``session_messages`` call per
  session, made sequentially;
- an incremental refresh with nothing changed (list calls, transcripts read);
- the size of the content index per 100k messages.
"""

from __future__ import annotations

import os
import secrets
import time

import httpx

from devtools.bench.child import median_ms

QUERIES = ("question", "4242")  # one in half of all messages, one in a handful


def run(stdout) -> None:
    from devtools.bench.child import hermes_dashboard, measure_in_child, seeded_peer

    with seeded_peer(stdout, "search") as (scratch, peer), hermes_dashboard(peer, scratch) as env:
        measure_in_child(stdout, "devtools.bench.search", scratch, peer, env)


def _db_bytes() -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("PRAGMA page_count")
        pages = cursor.fetchone()[0]
        cursor.execute("PRAGMA freelist_count")
        free = cursor.fetchone()[0]
        cursor.execute("PRAGMA page_size")
        return (pages - free) * cursor.fetchone()[0]


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.index import sync
    from hermes_ui.index.models import ContentMessage, IndexedSession

    settings.HERMES_INDEX_CONTENT = False
    listing = sync.sync(ep, full=True)
    say(f"index without content: {listing.rows_seen:,} rows in {listing.seconds:.1f} s")
    before = _db_bytes()

    settings.HERMES_INDEX_CONTENT = True
    build = sync.sync(ep, full=False)
    messages = ContentMessage.objects.count()
    ids = list(IndexedSession.objects.values_list("session_id", flat=True))
    raw = httpx.Client(
        base_url=ep.base_url, timeout=60, headers={"Authorization": f"Bearer {ep.api_key}"}
    )
    started = time.perf_counter()
    for session_id in ids:
        raw.get(f"/api/sessions/{session_id}/messages").raise_for_status()
    sequential = time.perf_counter() - started
    say(
        f"full content build: {build.seconds:.1f} s for {build.content_reads:,} transcripts, "
        f"{messages:,} messages ({build.list_calls} list call, "
        f"{settings.HERMES_INDEX_TOOL_RESULT_CHARS} chars per tool result); one raw "
        f"session_messages call per session, sequential: {sequential:.1f} s; ratio "
        f"{build.seconds / sequential:.2f} (target <= 1.5: "
        f"{'met' if build.seconds <= 1.5 * sequential else 'NOT met'})"
    )

    again = sync.sync(ep, full=False)
    say(
        f"refresh with nothing changed: {again.list_calls} list call(s), {again.get_calls} gets, "
        f"{again.content_reads} transcripts read, {again.seconds * 1000:.0f} ms"
    )

    size = _db_bytes() - before
    per = size * 100_000 / max(1, messages)
    say(
        f"content index size: {size / 1e6:.1f} MB for {messages:,} messages = "
        f"{per / 1e6:.1f} MB per 100k messages (SQLite table + FTS5, used pages)"
    )

    ensure_user("bench-reader", "support", secrets.token_urlsafe(18))
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-reader"))
    token = os.environ["BENCH_DASHBOARD_TOKEN"]
    dashboard = httpx.Client(
        base_url=os.environ["BENCH_DASHBOARD_URL"],
        timeout=60,
        headers={"X-Hermes-Session-Token": token},
    )
    for q in QUERIES:
        ours_answer = client.get("/e/bench/sessions/", {"q": q})
        assert ours_answer.status_code == 200, ours_answer.status_code
        theirs_answer = dashboard.get("/api/sessions/search", params={"q": q})
        theirs_answer.raise_for_status()
        ours = median_ms(lambda q=q: client.get("/e/bench/sessions/", {"q": q}), 7)
        theirs = median_ms(
            lambda q=q: dashboard.get("/api/sessions/search", params={"q": q}).raise_for_status(), 7
        )
        shown = ours_answer.content.decode().count('class="content-hit"')
        say(
            f"search {q!r}: our content search page (full HTML, {shown} transcripts shown) "
            f"{ours:.1f} ms vs Hermes' dashboard /api/sessions/search "
            f"({len(theirs_answer.json().get('results', []))} results) {theirs:.1f} ms, "
            f"median of 7; ratio {ours / theirs:.2f} (target <= 0.25: "
            f"{'met' if ours <= 0.25 * theirs else 'NOT met'})"
        )


if __name__ == "__main__":
    _measure()
