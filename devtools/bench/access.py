"""Benchmark of access rules: pages of a limited person beside the same pages of an admin on *.

``python manage.py bench --only access`` seeds its own peer (the bench seed:
10,000 sessions), configures it as 20 endpoints (``bench`` and ``ep02`` to
``ep20``, all the same server), indexes ``bench`` (titles, no content) and
measures in a child process, through Django's test client, four people:

- ``admin-all``: admin on ``*`` (the filters are skipped: the fast path);
- ``support-all``: support on ``*``, the same role as the two below;
- ``three-of-twenty``: support on ``bench``, ``ep07`` and ``ep13``;
- ``cli-only``: the same, limited on ``bench`` to the ``cli`` source.

For each of the Sessions page (the index), a search of it (``?q=Debug``) and
the page of a ``cli`` session, the CPU time of this process per answer
(``time.process_time``: the peer's work is another process's), the four
people in turn each round (who goes first turns), median of 15. The target
of issue 48 is at most 1.1x the admin's figure, in one run.
"""

from __future__ import annotations

import os
import statistics
import time

ROUNDS = 15
TARGET = 1.1
EXTRA = [f"ep{n:02d}" for n in range(2, 21)]
PEOPLE = {
    "admin-all": [("*", "admin", ())],
    # The same role as the limited two, on every endpoint: an admin's pages draw admin-only
    # parts (deletion, retention), so this is the like-for-like baseline.
    "support-all": [("*", "support", ())],
    "three-of-twenty": [("bench", "support", ()), ("ep07", "support", ()), ("ep13", "support", ())],
    "cli-only": [("bench", "support", ("cli",)), ("ep07", "support", ()), ("ep13", "support", ())],
}


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "access") as (scratch, peer):
        env = {"HERMES_EXTRA_ENDPOINTS": ",".join(f"{ep}={peer.base_url}" for ep in EXTRA)}
        env.update({f"HERMES_API_KEY_{ep.upper()}": peer.key for ep in EXTRA})
        env["HERMES_INDEX_PACE_MAX_STRETCH"] = "1"  # the first index unpaced: it is not measured
        measure_in_child(stdout, "devtools.bench.access", scratch, peer, env)


def _cpu_ms(client, url: str, params=None) -> float:
    started = time.process_time()
    answer = client.get(url, params or {})
    spent = (time.process_time() - started) * 1000
    assert answer.status_code == 200, (url, answer.status_code)
    return spent


def _profile(pages, clients) -> None:
    import cProfile
    import pstats

    for label, page in pages.items():
        for name in ("three-of-twenty", "cli-only"):
            page(clients[name], 0)
            profiler = cProfile.Profile()
            profiler.enable()
            for i in range(5):
                page(clients[name], i)
            profiler.disable()
            print(f"-- {label}: {name}", flush=True)
            stats = pstats.Stats(profiler)
            stats.sort_stats("cumulative").print_stats(r"hermes_ui", 25)


def _queries(action) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        action()
    if os.environ.get("BENCH_ACCESS_SQL"):  # the statements themselves, to see what differs
        for query in captured.captured_queries:
            print("   ", query["sql"][:300], flush=True)
    return [q["sql"] for q in captured.captured_queries]


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.conf import settings
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access import grants
    from hermes_ui.index import sync
    from hermes_ui.index.models import IndexedSession
    from hermes_ui.web.links import session_url

    settings.HERMES_INDEX_CONTENT = False
    listing = sync.sync(ep, full=True)
    say(f"indexed {listing.rows_seen:,} sessions of {ep.id!r} in {listing.seconds:.1f} s")
    say(f"{len(settings.HERMES_ENDPOINTS)} endpoints configured")
    User = get_user_model()
    clients = {}
    for name, wanted in PEOPLE.items():
        user = User.objects.create_user(name)
        for endpoint, role, sources in wanted:
            grants.grant(endpoint, role, sources, user=user)
        clients[name] = Client()
        clients[name].force_login(user)
    cli_ids = list(
        IndexedSession.objects.filter(endpoint=ep.id, source="cli")
        .order_by("-order_key")
        .values_list("session_id", flat=True)[: ROUNDS + 1]
    )
    pages = {
        "the Sessions page": lambda c, i: _cpu_ms(c, f"/e/{ep.id}/sessions/"),
        "a search (?q=Debug)": lambda c, i: _cpu_ms(c, f"/e/{ep.id}/sessions/", {"q": "Debug"}),
        "a cli session's page": lambda c, i: _cpu_ms(c, session_url(ep.id, cli_ids[i])),
    }
    if os.environ.get("BENCH_ACCESS_PROFILE"):  # where a limited person's time goes
        _profile(pages, clients)
    for label, page in pages.items():
        for client in clients.values():
            page(client, ROUNDS)  # warm: compiled queries, templates, the session's first read
        samples: dict[str, list[float]] = {name: [] for name in clients}
        names = list(clients)
        for i in range(ROUNDS):
            # Who goes first reads the session fresh: the order turns each round.
            for name in names[i % len(names) :] + names[: i % len(names)]:
                samples[name].append(page(clients[name], i))
        base = statistics.median(samples["admin-all"])
        queries = {
            name: len(_queries(lambda c=c, page=page: page(c, 0))) for name, c in clients.items()
        }
        like = statistics.median(samples["support-all"])
        parts = [
            f"admin on * {base:.1f} ms ({queries['admin-all']} queries)",
            f"support on * {like:.1f} ms ({queries['support-all']} queries)",
        ]
        for name in ("three-of-twenty", "cli-only"):
            mine = statistics.median(samples[name])
            verdict = "met" if mine <= TARGET * base else "NOT met"
            parts.append(
                f"{name} {mine:.1f} ms, {queries[name]} queries "
                f"({mine / base:.2f}x the admin's, target <= {TARGET}: {verdict}; "
                f"{mine / like:.2f}x support on *)"
            )
        say(f"{label}, CPU median of {ROUNDS}: " + "; ".join(parts))


if __name__ == "__main__":
    _measure()
