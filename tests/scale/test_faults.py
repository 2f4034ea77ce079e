"""Partial failure stays partial (issue 19): real servers, each fault injected for real.

Every test runs real uvicorn dashboard processes against the real Hermes peer,
and its own misbehaving Hermes, PostgreSQL or Redis, started here on loopback.
Each prints one ``FAULTS`` line of figures (requests, errors, p95, recovery)
for the closing note; ``pytest -s`` shows them.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time

import httpx
import pytest

from devtools.peer import demo_ids
from devtools.services import Postgres, Redis
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, peer_messages
from tests.scale.conftest import logged_in, on_worker, restore
from tests.scale.test_workers import answer_text, final_state, read_stream, start_turn
from tests.support.browser import DashboardServer
from tests.support.servers import (
    FaultServer,
    Load,
    Sample,
    new_database,
    p95,
    report,
    slow_upload,
    worker_pids,
)
from tests.support.waiting import until

PAGE_DEADLINE = 3.0
BREAKER_RETRY = 3.0
# How long PostgreSQL stays stopped (before it is started again): the pool's
# wait (2 s) and then some.
DB_OUTAGE = 5.0
# What "answers within the deadline" allows on a loaded 2-core machine.
MARGIN = 2.0


def _cookies_of(browser):
    def make():
        client = httpx.Client(base_url=str(browser.base_url), timeout=30)
        client.cookies = browser.cookies
        return client

    return make


# -- 1. a Hermes that hangs, and one that trickles ------------------------------------------


@pytest.mark.peer
def test_a_hanging_and_a_trickling_hermes_stay_their_own_problem(hermes_peer, tmp_path):
    with (
        FaultServer(hermes_peer.base_url) as hang,
        FaultServer(hermes_peer.base_url, trickle=2.0) as trickle,
    ):
        env = {
            "HERMES_EXTRA_ENDPOINTS": f"hang={hang.url},trickle={trickle.url}",
            "HERMES_API_KEY_HANG": hermes_peer.key,
            "HERMES_API_KEY_TRICKLE": hermes_peer.key,
            "HERMES_PAGE_DEADLINE": str(PAGE_DEADLINE),
            "HERMES_BREAKER_RETRY_SECONDS": str(BREAKER_RETRY),
            # Two broken endpoints at the default cap (half of the 4 lanes each) could hold
            # every lane until their breakers open; one lane each leaves two to the rest.
            "HERMES_BULKHEAD": "1",
            "HERMES_INDEX_REFRESH_SECONDS": "0",
        }
        # Pages only: no job is queued, so no task worker.
        server = DashboardServer(tmp_path, hermes_peer, extra_env=env, task_worker=False).start()
        try:
            _hammer_the_broken_endpoints(server, hang, trickle)
        finally:
            server.stop()


def _hammer_the_broken_endpoints(server, hang: FaultServer, trickle: FaultServer) -> None:
    browser = logged_in(server)
    pid = server.process.pid
    healthy = ["/e/local/sessions/", f"/e/local/sessions/{demo_ids.DELEGATE_PARENT}/"]
    assert all(browser.get(url).status_code == 200 for url in healthy)
    load = Load()
    started = time.monotonic()
    ends = started + 60  # a bound: the test stops the load long before
    make = _cookies_of(browser)
    for endpoint in ("hang", "trickle"):
        for _ in range(2):
            load.run(make, [f"/e/{endpoint}/sessions/"], until=ends, keep_text=True, pause=0.2)
    # Healthy pages all along, paced like the broken ones: back to back, two threads
    # spent most of the test's CPU on hundreds more of the same page.
    load.run(make, healthy, until=ends, pause=0.2)
    load.run(make, healthy, until=ends, pause=0.2)
    load.run(make, ["/healthz"], until=ends, pause=0.1)

    def opened(endpoint):
        return [s for s in load.of(f"/e/{endpoint}/") if "is not answering since" in s.text]

    # Three timeouts open each breaker.
    until(lambda: opened("hang") and opened("trickle"), 30, "a breaker never opened")
    # Stay open two trial periods, then heal both servers.
    time.sleep(2 * BREAKER_RETRY)
    healed_at = time.monotonic()
    hang.heal()
    trickle.heal()

    def recovered(endpoint):
        return [s for s in load.of(f"/e/{endpoint}/") if s.started > healed_at and s.status == 200]

    until(lambda: recovered("hang") and recovered("trickle"), 30, "a breaker never closed")
    # A few more answers each after the recovery, for the last assertion below.
    until(lambda: min(len(recovered("hang")), len(recovered("trickle"))) >= 5, 30, "no load")
    load.stop.set()
    load.join()
    assert server.process.poll() is None and server.process.pid == pid  # no restart

    # The healthy endpoint and /healthz never failed.
    for prefix in ("/e/local/", "/healthz"):
        samples = load.of(prefix)
        assert samples and all(s.status == 200 for s in samples), [
            (s.url, s.status, s.text[:200]) for s in samples if s.status != 200
        ]
    for endpoint, server_ in (("hang", hang), ("trickle", trickle)):
        samples = load.of(f"/e/{endpoint}/")
        open_at = min(s.started + s.seconds for s in opened(endpoint))
        first_ok = min(s.started for s in recovered(endpoint))
        # Answered before the heal (one in flight at the heal may be answered by the healed
        # server, and rightly so).
        broken = [s for s in samples if s.started + s.seconds < healed_at]
        # Broken pages: answered (503/504, never a 500) within the deadline, plus margin.
        assert all(s.status in (503, 504) for s in broken), {s.status for s in broken}
        assert max(s.seconds for s in broken) <= PAGE_DEADLINE + MARGIN, max(
            s.seconds for s in broken
        )
        # Once open: 503s well under the deadline, except one trial per retry period
        # (which waits for the hanging server until the deadline: a 504).
        after = [s for s in broken if s.started >= open_at]
        fast = [s for s in after if s.status == 503 and "is not answering since" in s.text]
        trials = [s for s in after if s.status == 504]
        assert len(fast) + len(trials) == len(after), [(s.status, s.text[:300]) for s in after]
        assert fast and p95(fast) < PAGE_DEADLINE / 2, p95(fast)
        assert max(s.seconds for s in fast) < PAGE_DEADLINE, max(s.seconds for s in fast)
        assert len(trials) <= (healed_at - open_at) / BREAKER_RETRY + 2, len(trials)
        # Healed: 200 again within 30 s, and from then on.
        assert first_ok - healed_at < 30
        # Pages that started while the successful trial was still waiting were refused
        # fast, rightly: the breaker closes when the trial's answer is in.
        closed_at = min(s.started + s.seconds for s in recovered(endpoint))
        assert all(s.status == 200 for s in samples if s.started >= closed_at)
        report(
            f"1 {endpoint}",
            samples,
            opened_after=f"{open_at - started:.1f}s",
            fast_503=len(fast),
            p95_fast_503=f"{p95(fast):.2f}s",
            max_fast_503=f"{max(s.seconds for s in fast):.2f}s",
            trials=len(trials),
            connections=server_.accepted,
            recovered_after=f"{first_ok - healed_at:.1f}s",
        )
    report("1 healthy pages", load.of("/e/local/"))
    report("1 /healthz", load.of("/healthz"))


# -- 2. Redis stopped mid-run ---------------------------------------------------------------


@pytest.fixture
def own_redis():
    """A Redis of this test alone: it is stopped and started again."""
    with Redis() as redis:
        yield redis


@pytest.mark.peer
@pytest.mark.scale
def test_redis_stopped_mid_run_costs_speed_not_pages_or_turns(
    backends, synced_template, own_redis, hermes_peer, tmp_path
):
    # One data folder (the secret key) for both workers; a log folder each. The database
    # is a copy of the synced template: users, and the peer's sessions indexed.
    env = {
        "DATABASE_URL": new_database(backends["DATABASE_URL"], template=synced_template),
        "REDIS_URL": own_redis.url,
        "HERMES_UI_DATA_DIR": str(tmp_path),
        "HERMES_INDEX_REFRESH_SECONDS": "0",
    }
    a, b = (DashboardServer(_folder(tmp_path, n), hermes_peer, extra_env=env) for n in "ab")
    try:
        a.start(prepare=False)
        b.start(prepare=False)
        _redis_outage(a, b, own_redis, hermes_peer)
    finally:
        a.stop()
        b.stop()


def _redis_outage(a, b, redis, peer) -> None:
    browser = logged_in(a)
    pages = [
        "/e/local/sessions/?view=all",
        "/e/local/sessions/?q=billing",
        f"/e/local/sessions/{demo_ids.DELEGATE_PARENT}/",
        f"/e/local/lineage/{demo_ids.DELEGATE_PARENT}/",
    ]
    for url in pages:  # with Redis: fills its caches
        assert browser.get(url).status_code == 200, url
    # A turn relayed by worker a, watched on worker b through Redis, when Redis stops.
    running = new_session(peer, "faults-redis")
    turn_id = start_turn(browser, running, "redis goes away [[slow:25]]")
    watcher = on_worker(browser, b)
    halted = []

    def halt_redis_at_slow2(frames) -> bool:
        if not halted and "slow2" in answer_text(frames):
            redis.halt()
            halted.append(time.monotonic())
        return False  # read on, to the end

    frames = read_stream(watcher, turn_id, stop_at=halt_redis_at_slow2)
    # The open stream says the live view is gone, then shows the result when the turn
    # ends (25 deltas, 0.2 s apart).
    note = next(i for i, f in enumerate(frames) if "The live view is unavailable" in f[2])
    # (Under load the watcher may join late, its snapshot holding the first deltas.)
    assert frames[note][0] == "status" and "slow2" in answer_text(frames[:note])
    assert final_state(frames) == "completed", frames
    assert "slow25" in frames[-2][2]
    result_after = time.monotonic() - halted[0]
    assert _user_messages(peer, running) == 1  # sent once

    # Pages, on both workers, while Redis is down.
    samples = []
    for client in (browser, watcher):
        for _ in range(5):
            for url in pages:
                began = time.monotonic()
                answer = client.get(url)
                samples.append(Sample(url, began, time.monotonic() - began, answer.status_code))
    assert all(s.status == 200 for s in samples), [(s.url, s.status) for s in samples]
    assert "state-completed" in watcher.get(f"/e/local/turns/{turn_id}/").text

    # A turn started while Redis is down is refused, with the reason; nothing reaches Hermes.
    refused_session = new_session(peer, "faults-redis")
    refused = _post_turn(browser, refused_session, "while redis is down")
    assert refused.status_code == 503, refused.text[:500]
    assert "could not reach Redis" in refused.text and "nothing was sent" in refused.text
    assert _user_messages(peer, refused_session) == 0
    for server in (a, b):  # once per outage, not once per request or event
        log = server.log_path.read_text()
        assert log.count("redis unreachable") == 1, log[-3000:]
        assert "Traceback" not in log, log[-3000:]

    # Redis is back: the stream relays across the workers again.
    redis.restart()
    restarted_at = time.monotonic()
    for server in (a, b):
        ready = server.base_url + "/readyz"
        until(lambda u=ready: httpx.get(u).status_code == 200, 30, "no Redis for /readyz")
    back = time.monotonic() - restarted_at
    again = new_session(peer, "faults-redis")
    turn_again = start_turn(browser, again, "redis is back [[slow:5]]")
    frames = read_stream(watcher, turn_again)
    assert any(event == "delta" for event, _, _ in frames), frames
    assert final_state(frames) == "completed"
    assert _user_messages(peer, again) == 1
    report(
        "2 pages with Redis down",
        samples,
        turn_result_after=f"{result_after:.1f}s",
        ready_again_after=f"{back:.1f}s",
    )


# -- 3. PostgreSQL stopped, and restarted under load ----------------------------------------


@pytest.fixture
def own_postgres():
    """A PostgreSQL of this test alone: it is stopped and started again."""
    with Postgres() as postgres:
        yield postgres


@pytest.mark.peer
@pytest.mark.scale
def test_postgresql_stopped_is_a_prompt_503_and_a_restart_costs_no_restart(
    own_postgres, migrated_dump, hermes_peer, tmp_path
):
    env = {"DATABASE_URL": own_postgres.url, "HERMES_INDEX_REFRESH_SECONDS": "0"}
    restore(migrated_dump, own_postgres.url)
    server = DashboardServer(tmp_path, hermes_peer, extra_env=env).start(prepare=False)
    try:
        _database_outage(server, own_postgres)
    finally:
        server.stop()


def _database_outage(server, postgres) -> None:
    browser = logged_in(server)
    probe = httpx.Client(base_url=server.base_url, timeout=30)  # no cookie, as a probe
    pid = server.process.pid
    pages = ["/e/local/sessions/?view=all", "/e/local/sessions/"]
    assert all(browser.get(url).status_code == 200 for url in pages)

    postgres.halt()
    halted = time.monotonic()
    outage = []  # a page every half second for DB_OUTAGE seconds
    while time.monotonic() < halted + DB_OUTAGE:
        began = time.monotonic()
        down = browser.get(pages[len(outage) % 2])
        outage.append(Sample(down.url.path, began, time.monotonic() - began, down.status_code))
        assert down.status_code == 503 and "database is unreachable" in down.text, down.text[:300]
        time.sleep(0.5)
    # The pool's wait (HERMES_UI_DB_WAIT_SECONDS=2), once.
    assert max(s.seconds for s in outage) < 3.0, [s.seconds for s in outage]
    ready = probe.get("/readyz")
    assert ready.status_code == 503 and "database" in ready.text, ready.text
    assert probe.get("/healthz").status_code == 200

    postgres.restart()
    restarted = time.monotonic()
    until(lambda: browser.get(pages[0]).status_code == 200, 60, "pages never recovered")
    recovery = time.monotonic() - restarted
    assert probe.get("/readyz").status_code == 200
    assert all(browser.get(url).status_code == 200 for url in pages)

    # A restart (stop, then start at once) while four browsers keep loading pages for 10 s.
    # The pool retries on a 1 s grid (psycopg_pool's backoff), so a restart that keeps
    # PostgreSQL away for more than about a second costs the pages waiting when it went.
    load = Load()
    started = time.monotonic()
    for _ in range(4):
        load.run(_cookies_of(browser), pages, until=started + 10)
    until(lambda: len(load.samples) >= 40, 30, "no load")
    bounced = time.monotonic()
    postgres.halt()
    postgres.restart()
    bounce = time.monotonic() - bounced
    load.join()
    errors = [s for s in load.samples if s.status != 200]
    assert len(errors) <= 0.01 * len(load.samples), [(s.url, s.status) for s in errors]
    assert server.process.pid == pid and server.process.poll() is None  # no restart
    report("3 PostgreSQL down", outage, down_for=f"{restarted - halted:.1f}s")
    report(
        "3 PostgreSQL restart under load",
        load.samples,
        down_for=f"{bounce:.1f}s",
        recovery_after_outage=f"{recovery:.1f}s",
    )


# -- 4. a worker killed under load ---------------------------------------------------------


@pytest.mark.peer
@pytest.mark.scale
def test_a_worker_killed_under_load_is_replaced_and_the_other_serves_on(
    backends, migrated_template, hermes_peer, tmp_path
):
    env = {
        "DATABASE_URL": new_database(backends["DATABASE_URL"], template=migrated_template),
        "REDIS_URL": backends["REDIS_URL"],
        "HERMES_INDEX_REFRESH_SECONDS": "0",
    }
    server = DashboardServer(tmp_path, hermes_peer, extra_env=env, workers=2)
    server.start(prepare=False)
    try:
        _kill_a_worker(server)
    finally:
        server.stop()


def _kill_a_worker(server) -> None:
    browser = logged_in(server)
    supervisor = server.process.pid
    originals = until(lambda: len(pids := worker_pids(supervisor)) == 2 and pids, 30, "2 workers")
    pages = [
        "/e/local/sessions/?view=all",
        "/e/local/sessions/",
        f"/e/local/sessions/{demo_ids.DELEGATE_PARENT}/",
    ]
    load, threads = Load(), 4
    started = time.monotonic()
    for _ in range(threads):
        load.run(_cookies_of(browser), pages, until=started + 90)
    until(lambda: len(load.samples) >= 40, 30, "no load")
    kills, replacements = [], []
    # Kill one worker; once its replacement is up, kill the other original too, so the
    # pages after that are served by replacements only.
    for victim in sorted(originals):
        before = worker_pids(supervisor)
        os.kill(victim, signal.SIGKILL)
        kills.append(time.monotonic())
        until(lambda b=before: worker_pids(supervisor) - b, 30, "the dead worker was not replaced")
        replacements.append(time.monotonic() - kills[-1])
        later = time.monotonic() + 2
        until(lambda t=later: sum(s.started > t for s in load.samples) >= 20, 60, "no load after")
    load.stop.set()
    load.join()
    assert not worker_pids(supervisor) & originals and len(worker_pids(supervisor)) == 2
    assert server.process.poll() is None  # the supervisor itself never stopped

    errors = [s for s in load.samples if s.status != 200]
    # Only requests in flight on a killed worker may fail: one per client thread at most.
    assert len(errors) <= threads * len(kills), [(s.url, s.status, s.text) for s in errors]
    # ...that is, requests in flight when a worker died (under load a request runs long).
    assert all(any(s.started - 1 < k < s.started + s.seconds + 1 for k in kills) for s in errors), (
        errors
    )
    served = [s for s in load.samples if kills[0] + 1 < s.started < kills[1] - 1]
    assert served and all(s.status == 200 for s in served)
    report(
        "4 workers killed",
        load.samples,
        kills=len(kills),
        replaced_after="/".join(f"{r:.1f}s" for r in replacements),
    )


# -- 5. slow uploads -------------------------------------------------------------------------

BODY_SECONDS = 3.0


@pytest.mark.peer
def test_slow_uploads_hold_no_page_and_are_answered_408(hermes_peer, tmp_path):
    env = {"HERMES_UI_BODY_SECONDS": str(BODY_SECONDS), "HERMES_INDEX_REFRESH_SECONDS": "0"}
    # Pages only: no job is queued, so no task worker.
    server = DashboardServer(tmp_path, hermes_peer, extra_env=env, task_worker=False).start()
    try:
        _slow_uploads(server)
    finally:
        server.stop()


def _slow_uploads(server) -> None:
    browser = logged_in(server)
    probe = httpx.Client(base_url=server.base_url, timeout=30)
    answers = []

    def upload():
        limit = BODY_SECONDS + 10
        answers.append(slow_upload(server.port, "/accounts/login/", every=1.0, limit=limit))

    uploads = [threading.Thread(target=upload) for _ in range(4)]
    for thread in uploads:
        thread.start()
    # Pages while the four uploads hold their connections (as long as they do), ten
    # rounds a second.
    samples = []
    while any(thread.is_alive() for thread in uploads):
        for client, url in ((probe, "/healthz"), (browser, "/e/local/sessions/?view=all")):
            began = time.monotonic()
            status = client.get(url).status_code
            samples.append(Sample(url, began, time.monotonic() - began, status))
        time.sleep(0.1)
    for thread in uploads:
        thread.join()
    assert len(samples) >= 10 and all(s.status == 200 for s in samples), samples
    assert max(s.seconds for s in samples) < 2.0, max(s.seconds for s in samples)
    assert len(answers) == 4
    for status_line, seconds in answers:
        assert status_line.startswith("HTTP/1.1 408"), status_line
        assert BODY_SECONDS - 0.5 <= seconds < BODY_SECONDS + MARGIN, seconds
    report(
        "5 pages during 4 slow uploads",
        samples,
        answered_408_after="/".join(f"{seconds:.1f}s" for _, seconds in answers),
    )


def _folder(parent, name: str):
    folder = parent / name
    folder.mkdir()
    return folder


def _post_turn(client: httpx.Client, session_id: str, message: str) -> httpx.Response:
    """Send a streamed turn's form (as htmx does); the answer, whatever it is."""
    page = client.get(session_url("local", session_id)).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    return client.post(
        session_url("local", session_id, "session_chat"),
        data={"message": message, "form_key": mint_key(), "csrfmiddlewaretoken": token},
        headers={"HX-Request": "true"},
    )


def _user_messages(peer, session_id: str) -> int:
    return [row["role"] for row in peer_messages(peer, session_id)["data"]].count("user")
