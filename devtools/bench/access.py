"""Benchmark of access rules: pages of a limited person beside the same pages of an admin on *.

``python manage.py bench --only access`` seeds its own peer (the bench seed:
10,000 sessions), configures it as 20 endpoints (``bench`` and ``ep02`` to
``ep20``, all the same server), indexes ``bench`` (titles, no content) and
measures in a child process, through Django's test client, three people:

- ``admin-all``: admin on ``*`` (the filters are skipped: the fast path);
- ``three-of-twenty``: support on ``bench``, ``ep07`` and ``ep13``;
- ``cli-only``: the same, limited on ``bench`` to the ``cli`` source.

For each of the Sessions page (the index), a search of it (``?q=Debug``) and
the page of a ``cli`` session, the CPU time of this process per answer
(``time.process_time``: the peer's work is another process's), the three
people in turn each round (who goes first turns), median of 15. The target
of issue 48 is at most 1.1x the admin's figure, in one run.
"""

from __future__ import annotations

import statistics
import time

ROUNDS = 15
TARGET = 1.1
EXTRA = [f"ep{n:02d}" for n in range(2, 21)]
PEOPLE = {
    "admin-all": [("*", "admin", ())],
    "three-of-twenty": [("bench", "support", ()), ("ep07", "support", ()), ("ep13", "support", ())],
    "cli-only": [("bench", "support", ("cli",)), ("ep07", "support", ()), ("ep13", "support", ())],
}


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer

    with seeded_peer(stdout, "access") as (scratch, peer):
        env = {"HERMES_EXTRA_ENDPOINTS": ",".join(f"{ep}={peer.base_url}" for ep in EXTRA)}
        env.update({f"HERMES_API_KEY_{ep.upper()}": peer.key for ep in EXTRA})
        measure_in_child(stdout, "devtools.bench.access", scratch, peer, env)


def _cpu_ms(client, url: str, params=None) -> float:
    started = time.process_time()
    answer = client.get(url, params or {})
    spent = (time.process_time() - started) * 1000
    assert answer.status_code == 200, (url, answer.status_code)
    return spent


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
    for label, page in pages.items():
        for client in clients.values():
            page(client, ROUNDS)  # warm: compiled queries, templates, the session's first read
        samples: dict[str, list[float]] = {name: [] for name in clients}
        names = list(clients)
        for i in range(ROUNDS):
            # Who goes first reads the session fresh: the order turns each round.
            for name in names[i % 3 :] + names[: i % 3]:
                samples[name].append(page(clients[name], i))
        base = statistics.median(samples["admin-all"])
        parts = [f"admin on * {base:.1f} ms"]
        for name in ("three-of-twenty", "cli-only"):
            mine = statistics.median(samples[name])
            verdict = "met" if mine <= TARGET * base else "NOT met"
            parts.append(
                f"{name} {mine:.1f} ms ({mine / base:.2f}x, target <= {TARGET}: {verdict})"
            )
        say(f"{label}, CPU median of {ROUNDS}: " + "; ".join(parts))


if __name__ == "__main__":
    _measure()
