"""Benchmark of transcripts on a paging server: the paging peer (0.19.0 with the newer
/messages rules in front, ``devtools/peer/paging.py``).

``python manage.py bench --only paging`` seeds a scratch peer with the paging profile
(transcripts of 1,200, 3,000 and 100,000 messages, written through Hermes' own
SessionDB), starts the paging peer in front of it, then measures in a child process:

1. reading the 3,000-message transcript whole (``get_messages``: seven pages from the
   oldest) against the same seven raw page calls made one after the other, keeping their
   answers (as a whole read holds its rows) and dropping them, median of 15 each, and the
   ratios (target at most 1.15);
2. the session page at its latest turns (``?at=latest``) of the 100,000-message session,
   through Django's test client, against one raw page call of the last page, median of 5
   each, and their ratio (target at most 1.5).

Each side is called in turn with the others (``alternated``), so the load of other jobs
on the machine falls on all of them alike.

The paging peer answers each page from 0.19.0's whole read, so a page of a long
transcript costs what 0.19.0's whole answer costs; both sides of each ratio pay it.
"""

from __future__ import annotations

import secrets
import statistics

from devtools.bench.child import median_ms
from devtools.peer import demo_ids as ids

HUGE = 100_000
PAGE = 500


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child, seeded_peer
    from devtools.peer.paging import PagingPeer

    with (
        seeded_peer(stdout, "paging", profile="paging", count=HUGE) as (scratch, peer),
        PagingPeer(peer) as paging,
    ):
        measure_in_child(stdout, "devtools.bench.paging", scratch, paging)


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.hermes import client_for
    from hermes_ui.web.links import session_url

    hermes = client_for(ep)
    sid = ids.PAGED_3000
    offsets = range(0, ids.PAGED_3000_MESSAGES + 1, PAGE)  # the last page is empty

    def pages(kept: list):
        for offset in offsets:
            kept.append(hermes.messages_page(sid, order="oldest", limit=PAGE, offset=offset))

    assert len(hermes.get_messages(sid)["data"]) == ids.PAGED_3000_MESSAGES  # and warm
    # Alternated, so a neighbour's load on the machine falls on every side alike. The raw
    # calls run twice: keeping their answers (as any whole read holds its rows) and not.
    whole_ms, kept_ms, dropped_ms = alternated(
        lambda: hermes.get_messages(sid), lambda: pages([]), lambda: pages(Dropping()), times=15
    )
    say(
        f"3,000-message transcript read whole: {whole_ms:.0f} ms; its {len(offsets)} raw page "
        f"calls {kept_ms:.0f} ms keeping the answers, ratio {whole_ms / kept_ms:.2f} "
        f"(target <= 1.15); {dropped_ms:.0f} ms dropping each answer, ratio "
        f"{whole_ms / dropped_ms:.2f}"
    )

    ensure_user("bench-support", "support", secrets.token_urlsafe(16))
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-support"))
    url = session_url(ep.id, ids.PAGED_HUGE, at="latest")

    def latest_page():
        answer = client.get(url)
        assert answer.status_code == 200, answer.status_code
        assert f"Message {HUGE} of {HUGE}." in answer.content.decode()

    def one_page():
        hermes.messages_page(ids.PAGED_HUGE, order="latest", limit=101, offset=0)

    latest_page()  # warm up: templates, caches
    page_ms, one_ms = alternated(latest_page, one_page, times=5)
    say(
        f"100,000-message session, latest turns page: {page_ms:.0f} ms; one raw page call "
        f"{one_ms:.0f} ms; ratio {page_ms / one_ms:.2f} (target <= 1.5)"
    )


def alternated(*actions, times: int) -> list[float]:
    """The median wall time (ms) of each action, the actions called in turn ``times`` each."""
    samples: list[list[float]] = [[] for _ in actions]
    for _ in range(times):
        for action, taken in zip(actions, samples, strict=True):
            taken.append(median_ms(action, 1))
    return [statistics.median(taken) for taken in samples]


class Dropping(list):
    """A list that keeps nothing: raw page calls whose answers are dropped at once."""

    def append(self, item) -> None:
        pass


if __name__ == "__main__":
    _measure()
