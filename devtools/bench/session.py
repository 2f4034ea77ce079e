"""Benchmark of the session page: its time beside the raw Hermes calls it needs.

``python manage.py bench --only session`` seeds its own peer (the bench seed:
10,000 sessions of 10 messages, plus one session of 3,000 messages written
with Hermes' own SessionDB), then measures in a child process with a scratch
database, through Django's test client (view, templates, middleware and the
Hermes round trips; no network hop to the dashboard), a support user:

1. the page of a 10-message session (a different, never-viewed session each
   round: nothing cached) and of the 3,000-message session (viewed again, as
   support does all day), each against the raw ``GET /api/sessions/<id>`` +
   ``GET /api/sessions/<id>/messages`` one after the other (plain httpx, no
   JSON decoding), taken in turn, median of 11; with the page's database
   queries and HTML size (targets: 2.5x and 1.5x, 150 KB). A page's time ends
   when its answer is ready, as a browser sees it; the work Django runs once a
   server has sent the last byte (``web.after_response``: the read watermark)
   is reported beside it;
2. the dashboard's floor: the cheapest authenticated page (``/mentions/``,
   empty), and what it is made of (its queries); the 10-message page
   without any feature's region (what the regions add is the difference); and
   the floor followed by the page's own two reads, a lower bound of any
   session page in this stack;
3. in Chromium (Debian's, through Playwright; the dashboard under uvicorn):
   from a click on "Latest turns" on the 3,000-message page to its last
   message in view (median of 5; target 1 s), and the document's elements per
   message rendered (target at most 8).

The machine's load average is printed at the start and the end: the figures
are ratios within one run for that reason.
"""

from __future__ import annotations

import os
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
LONG_ID = "session_bench_long"
LONG_MESSAGES = 3000
ROUNDS = 11
TARGET_SHORT, TARGET_LONG, TARGET_KB = 2.5, 1.5, 150
TARGET_LATEST_MS, TARGET_ELEMENTS = 1000, 8

_SEED = """
import sys
from pathlib import Path
sys.path.insert(0, {peer_dir!r})
import seed
db = seed.open_db(Path({home!r}))
w = seed.Writer(db, {base})
w.session({long_id!r}, "cli", {base}, title="Session bench: 3,000 messages")
rows = []
for i in range({long_messages} // 2):
    ts = {base} + i
    rows.append(seed.mrow({long_id!r}, "user", f"Step {{i}}: what is next, please?", ts))
    rows.append(seed.mrow({long_id!r}, "assistant", f"Done with step {{i}}.", ts + 0.5, "stop"))
seed.bulk_messages(db, rows)
db.close()
"""


def run(stdout) -> None:
    from devtools.bench.child import COUNT, measure_in_child
    from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, run_seed

    stdout.write(f"load average at the start: {_load()}")
    with tempfile.TemporaryDirectory(prefix="hermes-bench-session-") as scratch:
        home = Path(scratch) / "home"
        python = ensure_peer_venv()
        started = time.perf_counter()
        summary = run_seed(home, "bench", count=COUNT, peer_python=python)
        script = _SEED.format(
            peer_dir=str(REPO / "devtools" / "peer"),
            home=str(home),
            base=float(int(time.time())),
            long_id=LONG_ID,
            long_messages=LONG_MESSAGES,
        )
        subprocess.run([str(python), "-c", script], check=True, timeout=300)
        stdout.write(
            f"seeded {summary['sessions']:,} sessions and one of {LONG_MESSAGES:,} messages "
            f"in {time.perf_counter() - started:.1f} s"
        )
        with Peer(PeerConfig(home=home, peer_python=python)) as peer:
            measure_in_child(stdout, "devtools.bench.session", scratch, peer)
    stdout.write(f"load average at the end: {_load()}")


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} ({os.cpu_count()} cores)"


def _paired(ours, raw, sessions) -> tuple[float, float]:
    """Medians (ms) of our page and of the raw calls, taken in turn, one session a round.

    An action may return when its answer was ready (``time.perf_counter``): the page's
    time ends there, when its last byte is written, not after the work Django runs once
    the response is closed (``web.after_response``: the read watermark)."""
    mine, theirs = [], []
    for sid in sessions:
        for action, samples in ((raw, theirs), (ours, mine)):
            started = time.perf_counter()
            ready = action(sid)
            ended = ready if isinstance(ready, float) else time.perf_counter()
            samples.append((ended - started) * 1000)
    return statistics.median(mine), statistics.median(theirs)


def _answered(client) -> list[float]:
    """When each answer was ready: the test client's handler returned the response, before
    it closes it as a server does after the last byte (and runs the after-response work)."""
    times: list[float] = []
    inner = client.handler.get_response

    def timed(request):
        response = inner(request)
        times.append(time.perf_counter())
        return response

    client.handler.get_response = timed
    return times


def _queries(action) -> list[str]:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        action()
    return [q["sql"] for q in captured.captured_queries]


def _what(sql: str) -> str:
    """A query in a few words: its verb and first table."""
    words = sql.replace('"', "").split()
    verb = words[0].upper() if words else "?"
    table = next(
        (words[i + 1] for i, w in enumerate(words[:-1]) if w.upper() in {"FROM", "INTO", "UPDATE"}),
        "",
    )
    return f"{verb} {table}".strip()


def _measure() -> None:
    from devtools.bench.child import child_setup

    ep, say = child_setup()
    import httpx
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.access.accounts import ensure_user
    from hermes_ui.web.links import session_url

    password = secrets.token_urlsafe(18)
    ensure_user("bench-session", "support", password)
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench-session"))
    raw = httpx.Client(
        base_url=ep.base_url, timeout=60, headers={"Authorization": f"Bearer {ep.api_key}"}
    )

    def raw_calls(sid):
        raw.get(f"/api/sessions/{sid}").raise_for_status()
        raw.get(f"/api/sessions/{sid}/messages").raise_for_status()

    answered = _answered(client)

    def page(sid, **query):
        answer = client.get(session_url(ep.id, sid, **query))
        assert answer.status_code == 200, (sid, answer.status_code)
        return answer

    def page_ready(sid, **query):
        """The page's time to its answer (``_paired``), the after-response work left out."""
        page(sid, **query)
        return answered[-1]

    def floor_ready(_sid):
        client.get("/mentions/")
        return answered[-1]

    say(
        f"each figure: median of {ROUNDS}, the page and the raw calls taken in turn; raw = "
        "GET /api/sessions/<id> then GET .../messages, plain httpx; the page through Django's "
        "test client, a support user"
    )
    short = [f"bench_{i:05d}" for i in range(100, 100 + 5 + ROUNDS)]
    for sid in short[:5]:  # warm up templates, connections and code caches
        page(sid)
        raw_calls(sid)
    ours, theirs = _paired(page_ready, raw_calls, short[5:])
    whole, _ = _paired(page, raw_calls, [f"bench_{i:05d}" for i in range(200, 200 + ROUNDS)])
    count = len(_queries(lambda: page("bench_00090")))
    say(
        f"session page, 10 messages (never viewed before): {ours:.1f} ms to its answer vs raw "
        f"get + messages {theirs:.1f} ms: {ours / theirs:.2f}x (target <= {TARGET_SHORT}x: "
        f"{'met' if ours <= TARGET_SHORT * theirs else 'NOT met'}); {count} queries; "
        f"{whole:.1f} ms with the after-response work (the read watermark, written once the "
        "last byte is sent)"
    )
    _hermes_part(ep, say, short[5:], "10 messages")
    _without_regions(say, page_ready, raw_calls)
    page(LONG_ID)
    raw_calls(LONG_ID)
    ours, theirs = _paired(page_ready, raw_calls, [LONG_ID] * ROUNDS)
    answer = page(LONG_ID)
    size = len(answer.content) / 1024
    count = len(_queries(lambda: page(LONG_ID)))
    say(
        f"session page, {LONG_MESSAGES:,} messages (its first 100 shown): {ours:.1f} ms vs raw "
        f"{theirs:.1f} ms: {ours / theirs:.2f}x (target <= {TARGET_LONG}x: "
        f"{'met' if ours <= TARGET_LONG * theirs else 'NOT met'}); {count} queries; "
        f"{size:.0f} KB of HTML (target <= {TARGET_KB} KB: "
        f"{'met' if size <= TARGET_KB else 'NOT met'})"
    )
    _hermes_part(ep, say, [LONG_ID] * ROUNDS, f"{LONG_MESSAGES:,} messages")
    ours, theirs = _paired(lambda s: page_ready(s, at="latest"), raw_calls, [LONG_ID] * ROUNDS)
    size = len(page(LONG_ID, at="latest").content) / 1024
    say(
        f"its latest turns (?at=latest, the last 100): {ours:.1f} ms vs raw {theirs:.1f} ms: "
        f"{ours / theirs:.2f}x; {size:.0f} KB of HTML"
    )
    floor, theirs = _paired(floor_ready, raw_calls, short[5:])
    made_of = _queries(lambda: client.get("/mentions/"))
    say(
        f"floor, the cheapest authenticated page (/mentions/, empty): {floor:.1f} ms "
        f"({floor / theirs:.2f}x the raw calls of a 10-message session); made of: "
        "the middleware (session, auth, CSP, deadline), the layout (top bar, endpoints, "
        f"role badge, unread mentions) and {len(made_of)} queries: "
        + ", ".join(_what(q) for q in made_of)
    )
    _least(ep, say, floor_ready, raw_calls, short[5:])
    _in_chromium(ep, say, password)


def _least(ep, say, floor_ready, raw_calls, sessions) -> None:
    """What no session page in this stack can go under: the floor (the cheapest page)
    and then the page's own two reads, before anything of the session is drawn."""
    from hermes_ui.hermes import client_for
    from hermes_ui.sessions import reading

    def both(sid):
        floor_ready(sid)
        reading.session_and_messages(client_for(ep), sid)

    ours, theirs = _paired(both, raw_calls, sessions)
    say(
        f"  the floor then the page's own two reads, nothing of the session drawn: "
        f"{ours:.1f} ms vs raw {theirs:.1f} ms: {ours / theirs:.2f}x (a lower bound of the "
        "10-message page here)"
    )


def _without_regions(say, page, raw_calls) -> None:
    """The page with every region's template drawn empty for the measure: the layout,
    the two reads and the transcript alone. What the regions add is the rest."""
    import re

    from django.template import Template, engines

    engine = engines["django"].engine
    source = (REPO / "templates" / "sessions" / "detail.html").read_text()
    names = {
        name
        for name in re.findall(r'"([a-z_]+/_[a-z_]+\.html)"', source)
        if not name.startswith(("sessions/_side_panel", "sessions/_live_tip", "sessions/_find"))
        and not name.startswith(("live/", "partials/"))
    }
    blank, found = Template("", engine=engine), engine.get_template
    engine.get_template = lambda name: blank if name in names else found(name)
    try:
        fresh = [f"bench_{i:05d}" for i in range(300, 300 + ROUNDS)]
        ours, theirs = _paired(page, raw_calls, fresh)
    finally:
        del engine.get_template
    say(
        f"  the same page without any feature's region (title, layout, the two reads, "
        f"10 messages): {ours:.1f} ms vs raw {theirs:.1f} ms: {ours / theirs:.2f}x"
    )


def _hermes_part(ep, say, sessions, what: str) -> None:
    """What the page spends on Hermes itself: both reads at once, through the dashboard's
    client (JSON decoded and checked), as the view makes them."""
    from hermes_ui.hermes import client_for
    from hermes_ui.sessions import reading

    samples = []
    for sid in sessions:
        started = time.perf_counter()
        reading.session_and_messages(client_for(ep), sid)
        samples.append((time.perf_counter() - started) * 1000)
    say(
        f"  of which the page's own Hermes reads ({what}, at once, decoded): "
        f"median {statistics.median(samples):.1f} ms"
    )


def _in_chromium(ep, say, password: str) -> None:
    """Latest on the 3,000-message page, in Chromium against the dashboard under uvicorn."""
    import urllib.request

    from devtools.peer.launcher import free_port
    from hermes_ui.platform.serving import uvicorn_argv
    from hermes_ui.web.links import session_url

    port = free_port()
    base = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        uvicorn_argv("127.0.0.1", port, 1),
        cwd=REPO,
        env=os.environ,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with urllib.request.urlopen(base + "/healthz", timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise SystemExit("uvicorn did not start") from None
                time.sleep(0.1)
        took, elements, shown = _latest_in_chromium(base, session_url(ep.id, LONG_ID), password)
    finally:
        server.terminate()
        server.wait(10)
    median = statistics.median(took)
    per = elements / shown
    each = ", ".join(f"{t:.0f}" for t in took)
    say(
        f"Chromium, {LONG_MESSAGES:,}-message page, click on 'Latest turns' to the last message "
        f"in view: median {median:.0f} ms of {len(took)} (all: {each}; "
        f"target <= {TARGET_LATEST_MS} ms: {'met' if median <= TARGET_LATEST_MS else 'NOT met'}); "
        f"{elements:,} elements for {shown} messages shown: {per:.1f} per message (target <= "
        f"{TARGET_ELEMENTS}: {'met' if per <= TARGET_ELEMENTS else 'NOT met'})"
    )


_LAST_IN_VIEW = (
    "(() => { const all = document.querySelectorAll('#messages article.msg');"
    " const m = all[all.length - 1];"
    " if (!m || !location.search.includes('at=latest')) return false;"
    " const r = m.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })()"
)


def _latest_in_chromium(base: str, url: str, password: str):
    from playwright.sync_api import sync_playwright

    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    took = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(base + "/accounts/login/")
        page.fill("#id_username", "bench-session")
        page.fill("#id_password", password)
        page.click("button[type=submit]")
        page.wait_for_url(lambda u: "/accounts/login/" not in u)
        for _ in range(6):  # the first round warms the server and the browser up
            page.goto(base + url)
            page.wait_for_selector("#messages article.msg")
            started = time.perf_counter()
            page.click("#transcript-latest")
            while not _safe(page, _LAST_IN_VIEW):
                if time.perf_counter() - started > 30:
                    raise SystemExit("the last message never came into view")
                time.sleep(0.005)
            took.append((time.perf_counter() - started) * 1000)
        elements = page.evaluate("document.getElementsByTagName('*').length")
        shown = page.evaluate("document.querySelectorAll('#messages article.msg').length")
        browser.close()
    return took[1:], elements, shown


def _safe(page, expression: str) -> bool:
    from playwright.sync_api import Error

    try:
        return bool(page.evaluate(expression))
    except Error:
        return False  # the click's navigation replaced the document: ask the new one


if __name__ == "__main__":
    sys.exit(_measure())
