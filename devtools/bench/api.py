"""Benchmark of the REST API at 10,000 sessions: the search route against the index page,
and what token authentication costs.

``python manage.py bench --only api`` seeds its own peer (the bench seed: 10,000
sessions plus a 500-node lineage) and measures in a child process with a scratch
database:

- ``GET /api/v1/e/bench/sessions?q=…`` (a Bearer token) against the index page
  ``GET /e/bench/sessions/?q=…`` (a logged-in browser) for the same searches, taken in
  turn, median of 11 each (target: the API at most the page's time);
- a read (``GET /api/v1/e/bench/session/{id}`` and its ``/messages/{id}``) against the
  session page showing the same session and transcript, and a write (a rename,
  ``PATCH /api/v1/e/bench/session/{id}``) against the rename page's POST, taken in
  turn, median of 11 (target: the API at most 1.2 x the page's time);
- token authentication in process (``TokenAuth`` on a request: the lookup, the
  constant-time compare, the user's role, the rate counter and "last used"), median
  of 2,000 (target: at most 1 ms), for a right token and for a wrong one; and the
  lookup and compare alone for three kinds of wrong token, which must cost the same.
"""

from __future__ import annotations

import functools
import secrets
import statistics
import time

SEARCHES = ("", "kind:root", "tag:bench-wide", "open:no source:cli", "tag:bench-rare -kind:root")


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "api") as (scratch, peer):
        # The bench's own token makes thousands of requests a minute; the first index is
        # not measured, so it runs unpaced.
        extra = {"HERMES_UI_API_RATE": "100000", "HERMES_INDEX_PACE_MAX_STRETCH": "1"}
        measure_in_child(stdout, "devtools.bench.api", scratch, peer, extra_env=extra)


def _arrange(ep) -> int:
    from hermes_ui.search import queries
    from hermes_ui.tags.models import SessionTag, Tag

    ids = list(queries.present(ep).order_by("pk").values_list("session_id", flat=True))
    wide, rare = Tag.objects.create(name="bench-wide"), Tag.objects.create(name="bench-rare")
    tags = [
        SessionTag(**ep.scope(), session_id=sid, tag=tag)
        for n, sid in enumerate(ids)
        for tag, every in ((wide, 10), (rare, 100))
        if n % every == 0
    ]
    SessionTag.objects.bulk_create(tags, batch_size=1000)
    return len(ids)


def _paired(ours, theirs, times: int = 11) -> tuple[float, float]:
    mine, other = [], []
    for _ in range(times):
        for action, samples in ((ours, mine), (theirs, other)):
            started = time.perf_counter()
            answer = action()
            samples.append((time.perf_counter() - started) * 1000)
            assert answer.status_code == 200, answer.status_code
    return statistics.median(mine), statistics.median(other)


def _timed(action, statuses: tuple[int, ...]) -> float:
    started = time.perf_counter()
    answer = action()
    elapsed = (time.perf_counter() - started) * 1000
    assert answer.status_code in statuses, answer.status_code
    return elapsed


def _beside_pages(api, writer, page, ep, say, times: int = 11) -> None:
    """The API's read and write of one session against the pages' own (issue 49)."""
    from hermes_ui.audit.idempotency import mint_key
    from hermes_ui.index.models import IndexedSession
    from hermes_ui.web.links import session_url

    row = (
        IndexedSession.objects.filter(**ep.scope(), message_count__gte=10)
        .order_by("message_count", "pk")
        .first()
    )
    sid = row.session_id
    reads, shown, writes, posted = [], [], [], []
    url, rename = f"/api/v1/e/bench/session/{sid}", session_url(ep.id, sid, "session_rename")
    for n in range(times):
        reads.append(
            _timed(lambda: api.get(url), (200,))
            + _timed(lambda: api.get(f"/api/v1/e/bench/messages/{sid}"), (200,))
        )
        shown.append(_timed(lambda: page.get(session_url(ep.id, sid)), (200,)))
        body, key = {"title": f"bench rename api {n}"}, {"Idempotency-Key": mint_key()}
        patch = functools.partial(
            writer.patch, url, body, content_type="application/json", headers=key
        )
        writes.append(_timed(patch, (200,)))
        form = {"op": "rename", "key": mint_key(), "title": f"bench rename page {n}"}
        posted.append(_timed(functools.partial(page.post, rename, form), (302,)))
    for what, ours, theirs, them in (
        (f"read (session + transcript, {row.message_count} messages)", reads, shown, "page"),
        ("write (rename)", writes, posted, "page's POST"),
    ):
        mine, other = statistics.median(ours), statistics.median(theirs)
        say(
            f"{what}: API {mine:.1f} ms vs the {them} {other:.1f} ms, ratio "
            f"{mine / other:.2f} (target <= 1.2: {'met' if mine <= 1.2 * other else 'NOT met'})"
        )


def _auth_ms(header: str, times: int = 2000) -> float:
    from django.test import RequestFactory

    from hermes_ui.api.auth import TokenAuth

    auth, factory, samples = TokenAuth(), RequestFactory(), []
    request = factory.get("/api/v1/endpoints", headers={"Authorization": header})
    for _ in range(times):
        started = time.perf_counter()
        auth(request)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _lookup_ms(raw: str, times: int = 2000) -> float:
    from hermes_ui.api_tokens import tokens

    samples = []
    for _ in range(times):
        started = time.perf_counter()
        tokens.authenticate(raw)
        samples.append((time.perf_counter() - started) * 1000)
    return statistics.median(samples)


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.api_tokens import tokens
    from hermes_ui.index import sync

    settings.HERMES_INDEX_CONTENT = False  # both read the session table only
    report = sync.sync(ep, full=True)
    say(f"index: {report.rows_seen:,} rows in {report.seconds:.1f} s")
    ensure_user("bench-api", "reviewer", secrets.token_urlsafe(16))
    user = get_user_model().objects.get(username="bench-api")
    say(f"arranged: tags on every 10th and 100th of {_arrange(ep):,} indexed sessions")
    _, plain = tokens.issue(user, "bench")
    page = Client()
    page.force_login(user)
    api = Client(headers={"Authorization": f"Bearer {plain}"})
    say("each figure: median of 11, the API and the index page taken in turn (first page of 50)")
    for q in SEARCHES:
        total = api.get("/api/v1/e/bench/sessions", {"q": q}).json()["total"]
        ours, index = _paired(
            lambda q=q: api.get("/api/v1/e/bench/sessions", {"q": q}),
            lambda q=q: page.get("/e/bench/sessions/", {"q": q, "view": "all"}),
        )
        say(
            f"sessions?q={q!r} ({total:,} matching): API {ours:.1f} ms vs index page "
            f"{index:.1f} ms, ratio {ours / index:.2f} "
            f"(target <= 1: {'met' if ours <= index else 'NOT met'})"
        )
    _, writing = tokens.issue(user, "bench-write", write=True)
    writer = Client(headers={"Authorization": f"Bearer {writing}"})
    say("the API beside the pages: median of 11, taken in turn")
    _beside_pages(api, writer, page, ep, say)
    right = _auth_ms(f"Bearer {plain}")
    wrong = _auth_ms(f"Bearer {plain[:-4]}AAAA")
    say(
        f"token authentication in process, median of 2,000: right token {right:.3f} ms, "
        f"wrong token {wrong:.3f} ms (target <= 1 ms: {'met' if right <= 1 else 'NOT met'})"
    )
    # Where a right and a wrong token part ways: after the compare, a right one reads the
    # user's role and counts its rate. Up to the compare, every kind of miss costs the same.
    key_id = plain.split("_")[1]
    misses = {
        "wrong secret of a real key id": plain[:-4] + "AAAA",
        "unknown key id": plain.replace(key_id, "0" * 11 + "1"),
        "not a token at all": "x" * len(plain),
    }
    figures = ", ".join(f"{what} {_lookup_ms(raw):.3f} ms" for what, raw in misses.items())
    say(f"lookup and compare only (tokens.authenticate), median of 2,000: {figures}")


if __name__ == "__main__":
    _measure()
