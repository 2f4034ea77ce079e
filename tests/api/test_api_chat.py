"""Chat by token against the real peer: the page's turn (same record, audit and caps) as
JSON, the page's events as SSE with an ``id:`` on each, resumed after ``Last-Event-ID``."""

from __future__ import annotations

import threading

import pytest
from asgiref.sync import async_to_sync

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.chat.models import Turn
from tests.chat.conftest import new_session
from tests.chat.turns import finished, send
from tests.support.waiting import until

pytestmark = [pytest.mark.peer]


def post(client, sid: str, body: dict, key: str | None, query: str = "", **headers):
    if key:
        headers["Idempotency-Key"] = key
    url = f"/api/v1/e/local/chat/{sid}{query}"
    return client.post(url, body, content_type="application/json", headers=headers)


async def _collect(chunks) -> bytes:
    return b"".join([chunk async for chunk in chunks])


def events(response) -> list[dict]:
    """The SSE events of a streamed answer, each as {"id", "event"} (comments dropped)."""
    text = async_to_sync(_collect)(response.streaming_content).decode()
    found = []
    for block in text.split("\n\n"):
        fields = dict(
            line.split(": ", 1) for line in block.split("\n") if ": " in line and line[0] != ":"
        )
        if "event" in fields:
            found.append({"id": fields.get("id"), "event": fields["event"]})
    return found


def stream_rows(sid: str) -> list[tuple]:
    rows = AuditEvent.objects.filter(session_id=sid, capability="session_chat_stream")
    return [(e.outcome, e.http_status, sorted(e.evidence)) for e in rows]


def test_a_turn_by_token_is_the_page_turn_and_replays_for_its_key(chat_db, on_peer, bearer, login):
    by_page, by_api = new_session(on_peer), new_session(on_peer)
    assert send(login("support"), by_page, "hello").status_code == 200
    finished(Turn.objects.get(requested_session_id=by_page).pk)
    token, key = bearer("support", write=True), mint_key()
    answer = post(token, by_api, {"message": "hello"}, key)
    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert body["reply"] == {"role": "assistant", "content": "Echo: hello"}
    assert body["state"] == "completed" and body["durability"]["status"] == "verified"
    assert stream_rows(by_api) == stream_rows(by_page) and stream_rows(by_api)
    again = post(token, by_api, {"message": "hello"}, key)
    assert again.status_code == 200 and again.json() == {**body, "replayed": True}
    as_events = post(token, by_api, {"message": "hello"}, key, "?stream=1")  # the same turn
    assert as_events["Content-Type"] == "text/event-stream"
    assert [e["event"] for e in events(as_events)] == ["snapshot", "end"]
    assert Turn.objects.filter(requested_session_id=by_api).count() == 1
    reused = post(token, by_api, {"message": "something else"}, key)
    assert (reused.status_code, reused.json()["code"]) == (422, "idempotency_key_reused")
    empty = post(token, by_api, {"message": ""}, mint_key())
    assert empty.status_code == 400
    read_only = post(bearer("support"), by_api, {"message": "hi"}, mint_key())
    assert (read_only.status_code, read_only.json()["code"]) == (403, "read_only_token")


def test_a_streamed_turn_has_ids_and_resumes_after_last_event_id(chat_db, on_peer, bearer):
    sid = new_session(on_peer)
    token = bearer("support", write=True)
    live: dict = {}

    def stream():  # the first client: the whole turn as SSE (Accept), to its end
        sse = {"Accept": "text/event-stream"}
        live["answer"] = post(token, sid, {"message": "[[slow:15]] hi"}, mint_key(), **sse)
        live["events"] = events(live["answer"])

    first = threading.Thread(target=stream)
    first.start()
    turn = until(
        lambda: Turn.objects.filter(requested_session_id=sid, state="streaming").first(),
        20,
        "the turn did not start streaming",
    )
    url = f"/api/v1/e/local/turns/{turn.pk}/events"
    resumed = events(token.get(url, headers={"Last-Event-ID": "1"}))  # follows it live
    first.join(30)
    assert live["answer"]["Content-Type"] == "text/event-stream"
    # The stream's answer names the turn and where to resume it.
    assert live["answer"]["X-Turn-Id"] == str(turn.pk)
    assert live["answer"]["Content-Location"] == url
    for got in (live["events"], resumed):
        assert got[-1]["event"] == "end"
        assert all(e["id"] and e["id"].isdigit() for e in got)  # every event has an id
    assert any(e["event"] == "delta" and int(e["id"]) > 1 for e in resumed)
    # After the end: what came after the cursor is the final state, then the end.
    after = events(token.get(url, headers={"Last-Event-ID": resumed[-1]["id"]}))
    assert [e["event"] for e in after] == ["snapshot", "end"]
    bad = token.get(url, headers={"Last-Event-ID": "x1"})
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_cursor")
    missing = f"/api/v1/e/local/turns/{turn.pk + 1000}/events"
    assert bearer("support").get(missing).status_code == 404
