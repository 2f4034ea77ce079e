"""One dashboard on two worker processes: PostgreSQL and Redis shared, the relay across them."""

import re

import httpx
import psycopg
import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.index.models import IndexSyncState
from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, peer_messages
from tests.scale.conftest import on_worker, signed_in

pytestmark = [pytest.mark.peer, pytest.mark.scale]


def start_turn(client: httpx.Client, session_id: str, message: str) -> int:
    page = client.get(session_url("local", session_id)).text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    answer = client.post(
        session_url("local", session_id, "session_chat"),
        data={"message": message, "form_key": mint_key(), "csrfmiddlewaretoken": token},
        headers={"HX-Request": "true"},
    )
    assert answer.status_code == 200, answer.text[:500]
    return int(re.search(r'id="turn-(\d+)"', answer.text).group(1))


def read_stream(client: httpx.Client, turn_id: int, *, last_id=None, stop_at=None) -> list:
    """(event, id, data) frames of the turn's SSE, until ``end`` or ``stop_at`` says so."""
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    frames, current = [], {}
    url = f"/e/local/turns/{turn_id}/stream/"
    with client.stream("GET", url, headers=headers, timeout=60) as answer:
        assert answer.status_code == 200
        for line in answer.iter_lines():
            if line.startswith(("event:", "id:", "data:")):
                field, _, value = line.partition(":")
                current.setdefault(field, []).append(value.removeprefix(" "))
            elif line == "" and "event" in current:
                frame = (
                    current["event"][0],
                    current.get("id", [None])[0],
                    "\n".join(current.get("data", [])),
                )
                frames.append(frame)
                current = {}
                if frame[0] == "end" or (stop_at and stop_at(frames)):
                    break
    return frames


def answer_text(frames) -> str:
    return "".join(data for event, _, data in frames if event == "delta")


def final_state(frames) -> str:
    body = [data for event, _, data in frames if event == "snapshot"][-1]
    return re.search(r'class="turn-state state-(\w+)"', body).group(1)


def test_a_turn_started_on_one_worker_streams_on_another(workers, support_cookies, hermes_peer):
    a, b = workers
    browser = signed_in(a, support_cookies)
    session_id = new_session(hermes_peer, "scale")
    turn_id = start_turn(browser, session_id, "across workers [[slow:10]]")
    frames = read_stream(on_worker(browser, b), turn_id)
    # Joined mid-turn without Last-Event-ID: a snapshot, then deltas, then the final body.
    assert any(event == "delta" for event, _, _ in frames)
    assert "slow1 slow2 slow3 slow4 slow5" in frames[-2][2]
    assert final_state(frames) == "completed"
    assert frames[-1][0] == "end"


def test_a_reconnect_on_another_worker_resumes_from_last_event_id(
    workers, support_cookies, hermes_peer
):
    a, b = workers
    browser = signed_in(a, support_cookies)
    session_id = new_session(hermes_peer, "scale")
    turn_id = start_turn(browser, session_id, "resume me [[slow:8]]")
    first = read_stream(browser, turn_id, stop_at=lambda f: "slow2" in answer_text(f))
    last_id = int([i for e, i, _ in first if e == "delta"][-1])
    rest = read_stream(on_worker(browser, b), turn_id, last_id=last_id)
    seen = answer_text(first) + answer_text(rest)
    # Every delta once: nothing lost between workers and nothing replayed.
    assert seen.split() == [f"slow{i}" for i in range(1, 9)]
    assert final_state(rest) == "completed"


def test_killing_the_owner_makes_the_turn_uncertain_and_never_resends(
    workers, support_cookies, hermes_peer, scale_env
):
    a, b = workers
    browser = signed_in(a, support_cookies)
    session_id = new_session(hermes_peer, "scale")
    turn_id = start_turn(browser, session_id, "the owner dies [[slow:40]]")
    read_stream(on_worker(browser, b), turn_id, stop_at=lambda f: "slow1" in answer_text(f))
    a.process.kill()  # no shutdown: the relay's lease simply stops being renewed
    a.process.wait(10)
    try:
        frames = read_stream(on_worker(browser, b), turn_id)
        assert final_state(frames) == "uncertain", [(e, i, d[:80]) for e, i, d in frames]
        assert "restarted while this turn was running" in frames[-2][2]
        rows = peer_messages(hermes_peer, session_id)["data"]
        assert [r["role"] for r in rows].count("user") == 1  # sent once, never again
        page = on_worker(browser, b).get(f"/e/local/turns/{turn_id}/").text
        assert "state-uncertain" in page
    finally:
        a.stop()  # its task worker is still running: a restart would orphan it
        a.start(prepare=False)  # later tests get two workers again (the database is ready)


def test_two_refreshers_racing_run_one_sync(workers, hermes_peer, scale_env):
    import subprocess
    import sys

    from tests.support.browser import REPO, DashboardServer

    # A round's summary is routine (DEBUG): the race is read from it.
    env = {**DashboardServer(REPO, hermes_peer).env, **scale_env, "HERMES_UI_LOG_LEVEL": "DEBUG"}
    argv = [sys.executable, str(REPO / "manage.py"), "run_periodic", "index", "-v", "2"]
    racers = [
        subprocess.Popen(
            argv, env=env, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        for _ in range(2)
    ]
    outputs = [r.communicate(timeout=180)[0] for r in racers]
    assert all(r.returncode == 0 for r in racers), outputs
    logs = "\n".join(outputs)
    # The first sync of an endpoint is a full sweep; a second one, had it run
    # alongside, would have been a sweep too. One sweep and one skip or one
    # later incremental prove the lease held across processes.
    assert logs.count("full sweep") == 1, logs
    # The endpoint's one sync state row counts one sweep (read with SQL: a Django
    # process for one query cost more than the query).
    table = IndexSyncState._meta.db_table
    url = scale_env["DATABASE_URL"].replace("postgres://", "postgresql://")
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            f"SELECT sweep FROM {table} WHERE endpoint = %s",  # noqa: S608 (a model's table)
            ("local",),
        ).fetchall()
    assert rows == [(1,)], rows


def test_open_streams_hold_no_database_connection_between_events(
    workers, support_cookies, hermes_peer
):
    """Each worker keeps a small PostgreSQL pool (lanes + 4 = 8). Twelve browsers
    following one turn on worker b must not hold twelve connections: a page on
    that worker still gets one while they stay open."""
    import threading

    a, b = workers
    browser = signed_in(a, support_cookies)
    session_id = new_session(hermes_peer, "scale")
    turn_id = start_turn(browser, session_id, "many watchers [[slow:40]]")
    following, release, failures = threading.Semaphore(0), threading.Event(), []

    def watch():
        try:
            with on_worker(browser, b).stream(
                "GET", f"/e/local/turns/{turn_id}/stream/", timeout=60
            ) as answer:
                assert answer.status_code == 200
                for line in answer.iter_lines():
                    if line == "event: delta":
                        following.release()
                        release.wait(30)
                        return
        except Exception as exc:  # reported below, in the test's own thread
            failures.append(repr(exc))
            following.release()

    watchers = [threading.Thread(target=watch) for _ in range(12)]
    for watcher in watchers:
        watcher.start()
    try:
        for _ in watchers:
            assert following.acquire(timeout=30), "a watcher never saw a delta"
        assert failures == []
        page = on_worker(browser, b).get("/e/local/sessions/?view=all", timeout=30)
        assert page.status_code == 200, page.text[:300]
    finally:
        release.set()
        for watcher in watchers:
            watcher.join(30)
