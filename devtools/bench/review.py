"""Benchmark of the review core: the review page of a 3,000-message session against that
session's own page, and "label one item and open the next" in process.

``python manage.py bench --only review`` seeds a scratch peer (one session of 3,000
messages and 40 two-message sessions, written with Hermes' own SessionDB), then
measures in a child process with its own scratch database, through Django's test
client (the whole view, template and Hermes round trip, without a network hop to the
dashboard):

1. the session page and the review page of the 3,000-message session (a session item
   of the default rubric: session fields plus a policy field beside each message of the
   window), median of 9 after a warm-up, and their ratio (target at most 1.5);
2. "label one item and open the next": POST "Complete and next" with three labels, follow
   the redirect to ``next/`` (which reserves the next item) and open that item's page,
   median over 30 items (target at most 100 ms); the part spent reading Hermes is shown.
"""

from __future__ import annotations

import secrets
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from devtools.bench.child import median_ms

REPO = Path(__file__).resolve().parents[2]
LONG_ID = "review_bench_long"
LONG_MESSAGES = 3000
SMALL = 40
SMALL_PREFIX = "review_bench_small"

_SEED = """
import sys
from pathlib import Path
sys.path.insert(0, {peer_dir!r})
import seed
db = seed.open_db(Path({home!r}))
w = seed.Writer(db, {base})
w.session({long_id!r}, "cli", {base}, title="Review bench: 3,000 messages")
rows = []
for i in range({long_messages} // 2):
    ts = {base} + i
    rows.append(seed.mrow({long_id!r}, "user", f"Question {{i}}: what is next?", ts))
    rows.append(seed.mrow({long_id!r}, "assistant", f"Answer {{i}}.", ts + 0.5, "stop"))
for n in range({small}):
    sid = f"{small_prefix}_{{n:02d}}"
    w.session(sid, "cli", {base} + n, title=f"Small {{n}}")
    rows.append(seed.mrow(sid, "user", f"Small question {{n}}", {base} + n))
    rows.append(seed.mrow(sid, "assistant", f"Small answer {{n}}", {base} + n + 0.5, "stop"))
seed.bulk_messages(db, rows)
db.close()
"""


def run(stdout) -> None:
    from devtools.bench.child import measure_in_child
    from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv

    with tempfile.TemporaryDirectory(prefix="hermes-bench-review-") as scratch:
        home = Path(scratch) / "home"
        python = ensure_peer_venv()
        script = _SEED.format(
            peer_dir=str(REPO / "devtools" / "peer"),
            home=str(home),
            base=float(int(time.time())),
            long_id=LONG_ID,
            long_messages=LONG_MESSAGES,
            small=SMALL,
            small_prefix=SMALL_PREFIX,
        )
        subprocess.run([str(python), "-c", script], check=True, timeout=300)
        stdout.write(f"seeded one {LONG_MESSAGES:,}-message session and {SMALL} small ones")
        with Peer(PeerConfig(home=home, peer_python=python)) as peer:
            measure_in_child(stdout, "devtools.bench.review", scratch, peer)


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.hermes import client_for
    from hermes_ui.review.models import Item, Queue, Rubric
    from hermes_ui.web.links import session_url

    ensure_user("bench-reviewer", "reviewer", secrets.token_urlsafe(16))
    user = get_user_model().objects.get(username="bench-reviewer")
    client = Client()
    client.force_login(user)
    rubric = Rubric.objects.get(is_default=True)

    def queue(name, ids):
        made = Queue.objects.create(**ep.scope(), name=name, rubric=rubric, owner=user)
        Item.objects.bulk_create(Item(**ep.scope(), queue=made, session_id=s) for s in ids)
        return made

    def get(url, status=200):
        def action():
            answer = client.get(url)
            assert answer.status_code == status, (url, answer.status_code)

        return action

    long_queue = queue("long", [LONG_ID])
    item = long_queue.items.get()
    review_url = f"/e/{ep.id}/review/{long_queue.pk}/items/{item.pk}/"
    page_url = session_url(ep.id, LONG_ID)
    for url in (page_url, review_url):
        get(url)()  # warm up: templates, caches, the peer's pages
    session_ms = median_ms(get(page_url), 9)
    review_ms = median_ms(get(review_url), 9)
    hermes = client_for(ep)
    raw_ms = median_ms(lambda: hermes.get_messages(LONG_ID), 5)
    say(
        f"3,000-message session (window of 100 messages): session page {session_ms:.0f} ms, "
        f"review page {review_ms:.0f} ms, ratio {review_ms / session_ms:.2f} "
        f"(target <= 1.5); Hermes' /messages alone {raw_ms:.0f} ms"
    )
    _label_and_next(client, ep, queue, hermes, say)


def _label_and_next(client, ep, queue, hermes, say) -> None:
    small = queue("small", [f"{SMALL_PREFIX}_{n:02d}" for n in range(SMALL)])
    answer = client.get(f"/e/{ep.id}/review/{small.pk}/next/")
    location = answer["Location"]
    page = client.get(location)
    samples = []
    for _ in range(SMALL - 1):
        shown = page.content.decode().split('name="shown" value="')[1:]
        ids = [chunk.split('"')[0] for chunk in shown]
        started = time.perf_counter()
        data = {"action": "complete", "shown": ids, "s-resolved": "yes", "s-quality": "4"}
        data[f"m{ids[-1]}-policy"] = "none"
        posted = client.post(location, data)
        assert posted.status_code == 302, posted.status_code
        nxt = client.get(posted["Location"])
        assert nxt.status_code == 302, nxt.status_code
        location = nxt["Location"]
        page = client.get(location)
        assert page.status_code == 200, page.status_code
        samples.append((time.perf_counter() - started) * 1000)
    raw_ms = median_ms(lambda: hermes.get_messages(f"{SMALL_PREFIX}_00"), 9)
    raw_session_ms = median_ms(lambda: hermes.get_session(f"{SMALL_PREFIX}_00"), 9)
    median = statistics.median(samples)
    say(
        f"label one item and open the next (POST complete, GET next, GET item; "
        f"{len(samples)} items): median {median:.1f} ms, max {max(samples):.1f} ms "
        f"(target <= 100 ms), of which Hermes reads ~{raw_ms + raw_session_ms:.1f} ms "
        f"(one session + its messages)"
    )


if __name__ == "__main__":
    _measure()
