"""The event stream: resume from Last-Event-ID, follow, keepalive, pause, the stream cap."""

from __future__ import annotations

import asyncio
import json

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.utils import timezone

from hermes_ui.index.models import IndexedSession
from hermes_ui.live import changes as c
from hermes_ui.live import channel, fanout, views
from hermes_ui.live.models import LiveStatus, LiveWatch
from hermes_ui.platform.endpoints import get_endpoint

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/e/local/live/"


async def _until(chunks, done, seconds: float = 10.0) -> str:
    """The stream's text up to the first point where ``done(text)`` holds."""
    text = ""
    async with asyncio.timeout(seconds):
        async for chunk in chunks:
            text += chunk.decode()
            if done(text):
                return text
    return text


def frames(text: str, event: str) -> list[dict]:
    out = []
    for block in text.split("\n\n"):
        lines = block.split("\n")
        if f"event: {event}" in lines:
            data = next(line[6:] for line in lines if line.startswith("data: "))
            out.append(json.loads(data))
    return out


def test_a_reconnect_gets_what_it_missed_as_one_coalesced_event(mock_endpoint, login):
    start = channel.publish("local", [["s0", [c.NEW]]]).id
    channel.publish("local", [["s1", [c.NEW]]])
    channel.publish("other", [["x", [c.NEW]]])  # another endpoint's: not ours
    last = channel.publish("local", [["s1", [c.RENAMED]], ["s2", [c.CLOSED]]]).id
    answer = login("support").get(URL, headers={"Last-Event-ID": str(start)})
    assert answer.status_code == 200 and answer["Content-Type"] == "text/event-stream"
    text = async_to_sync(_until)(answer.streaming_content, lambda t: "event: since" in t)
    (since,) = frames(text, "since")
    assert since == {
        "id": last,
        "changes": [["s1", [c.NEW, c.RENAMED]], ["s2", [c.CLOSED]]],
        "more": 0,
        "reset": False,
    }
    assert f"id: {last}\n" in text


def test_a_cursor_older_than_the_kept_events_says_reset(mock_endpoint, login):
    for _ in range(3):
        kept = channel.publish("local", [["s", [c.NEW]]]).id
    from hermes_ui.live.models import LiveEvent

    LiveEvent.objects.exclude(pk=kept).delete()  # pruned
    answer = login("support").get(URL + "?after=1")
    text = async_to_sync(_until)(answer.streaming_content, lambda t: "event: since" in t)
    assert frames(text, "since")[0]["reset"] is True


def test_an_open_stream_receives_new_events_and_keepalives(mock_endpoint, login, monkeypatch):
    monkeypatch.setattr(views, "KEEPALIVE_SECONDS", 0.3)
    monkeypatch.setattr(fanout, "TICK", 0.05)
    mark = channel.last_id()
    now = timezone.now()
    IndexedSession.objects.create(  # a watched slot is for a session that exists
        **get_endpoint("local").scope(),
        session_id="s9",
        digest="x",
        first_seen_at=now,
        last_seen_at=now,
    )
    answer = login("support").get(f"{URL}?after={mark}&session=s9")

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "event: since" in t)
        watches = LiveWatch.objects.filter(endpoint="local")
        async with asyncio.timeout(5):  # the feed's first heartbeat
            while not await sync_to_async(watches.exists)():
                await asyncio.sleep(0.05)
        watch = await sync_to_async(watches.get)()
        assert watch.sessions == ["s9"]
        await sync_to_async(channel.publish)("local", [["s9", [c.MESSAGES]]])
        text = await _until(chunks, lambda t: "event: changes" in t)
        text += await _until(chunks, lambda t: ": keepalive" in t)
        # The browser goes away: Django's ASGI handler cancels the task sending the
        # stream; the stream leaves the feed, which ends and forgets the watch.
        sending = asyncio.create_task(_until(chunks, lambda t: False, seconds=60))
        await asyncio.sleep(0.1)
        sending.cancel()
        async with asyncio.timeout(5):
            while await sync_to_async(watches.exists)():
                await asyncio.sleep(0.05)
        return text

    text = async_to_sync(run)()
    (event,) = frames(text, "changes")
    assert event["changes"] == [["s9", [c.MESSAGES]]]
    assert ": keepalive" in text


def test_a_stream_without_a_cursor_sends_what_the_feed_took_before_it_resumed(
    mock_endpoint, login, monkeypatch
):
    monkeypatch.setattr(fanout, "TICK", 0.05)
    answer = login("support").get(URL)

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        sent = (await sync_to_async(channel.publish)("local", [["s8", [c.NEW]]])).id
        # The feed takes the event while the stream is still paused after its
        # first frame (as under load): the stream must still send it.
        (feed,) = fanout._feeds[asyncio.get_running_loop()].values()
        async with asyncio.timeout(5):
            while feed.last_id < sent:
                await asyncio.sleep(0.01)
        return await _until(chunks, lambda t: "event: changes" in t, 5), sent

    text, sent = async_to_sync(run)()
    (event,) = frames(text, "changes")
    assert event["id"] == sent and event["changes"] == [["s8", [c.NEW]]]


def test_a_failing_poll_pauses_the_page_and_a_good_one_resumes_it(
    mock_endpoint, login, monkeypatch
):
    monkeypatch.setattr(fanout, "TICK", 0.05)
    LiveStatus.objects.create(endpoint="local", polled_at=timezone.now(), error_code="breaker_open")
    answer = login("support").get(f"{URL}?after={channel.last_id()}")

    async def run():
        chunks = answer.streaming_content
        text = await _until(chunks, lambda t: "breaker_open" in t)
        await sync_to_async(channel.record_poll)("local", "")
        text += await _until(chunks, lambda t: '"paused":false' in t)
        await chunks.aclose()
        return text

    statuses = frames(async_to_sync(run)(), "status")
    assert statuses[0] == {"paused": True, "reason": "breaker_open"}
    assert statuses[-1] == {"paused": False, "reason": ""}


def test_without_a_refresher_polling_the_page_is_paused(mock_endpoint, login, monkeypatch):
    monkeypatch.setattr(fanout, "TICK", 0.05)
    monkeypatch.setattr(fanout, "overdue_after", lambda: 0.0)
    answer = login("support").get(f"{URL}?after={channel.last_id()}")

    async def run():
        text = await _until(answer.streaming_content, lambda t: "not_polled" in t)
        await answer.streaming_content.aclose()
        return text

    assert frames(async_to_sync(run)(), "status")[0] == {"paused": True, "reason": "not_polled"}


def test_past_the_stream_cap_the_browser_is_told_to_poll(mock_endpoint, login, settings):
    settings.HERMES_UI_LIVE_MAX_STREAMS = 0
    mark = channel.publish("local", [["s", [c.NEW]]]).id
    answer = login("support").get(f"{URL}?after={mark - 1}")

    async def collect():
        return b"".join([chunk async for chunk in answer.streaming_content]).decode()

    text = async_to_sync(collect)()  # it ends by itself
    assert "retry: 30000" in text
    assert frames(text, "poll") == [{"seconds": 30}]
    assert frames(text, "since")[0]["changes"] == [["s", [c.NEW]]]


@pytest.mark.parametrize(
    ("query", "headers"),
    [
        ("?after=%C2%B2", {}),
        ("?after=-1", {}),
        ("", {"Last-Event-ID": "abc"}),
        ("?session=a%0Ab", {}),
    ],
)
def test_a_bad_cursor_or_session_is_a_400(mock_endpoint, login, query, headers):
    answer = login("support").get(URL + query, headers=headers)
    assert answer.status_code == 400


def test_an_unknown_endpoint_is_a_404(mock_endpoint, login):
    assert login("support").get("/e/nope/live/").status_code == 404
