"""The notice streams: who hears of what, resuming from Last-Event-ID, the stream cap."""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.urls import reverse
from django.utils import timezone

from hermes_ui.live import notice_feed, notice_views, notices
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review.models import Queue, Rubric
from tests.live.test_stream import _until, frames

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/live/deletions/"


def _requested(request_id: int, requester: int) -> None:
    events.emit(
        events.DELETION_REQUESTED,
        endpoint="local",
        actor=requester,
        users=[requester],
        ids={"request_id": request_id, "session_id": "s1"},
    )


def _queue(name: str, endpoint: str = "local") -> Queue:
    rubric, _ = Rubric.objects.get_or_create(name="live-stream")
    scope = {**get_endpoint("local").scope(), "endpoint": endpoint}
    return Queue.objects.create(**scope, name=name, rubric=rubric)


def _review_url(queue: Queue) -> str:
    return reverse("live_review", kwargs={"endpoint": "local", "queue_id": queue.pk})


def test_an_admin_hears_of_every_request_a_requester_of_their_own(mock_endpoint, users, login):
    mark = notices.last_id()
    _requested(1, users["support"].pk)
    _requested(2, users["admin2"].pk)
    admin = login("admin").get(f"{URL}?after={mark}")
    support = login("support").get(URL, headers={"Last-Event-ID": str(mark)})
    assert admin.status_code == support.status_code == 200
    assert admin["Content-Type"] == "text/event-stream"
    seen = async_to_sync(_until)(admin.streaming_content, lambda t: t.count("event: notice") == 2)
    assert [f["request_id"] for f in frames(seen, "notice")] == [1, 2]
    assert "s1" not in seen  # a request's id, never its session's

    async def own():
        chunks = support.streaming_content
        text = await _until(chunks, lambda t: "event: notice" in t)
        await sync_to_async(_requested)(3, users["support"].pk)
        return await _until(chunks, lambda t: 'request_id":3' in t, seconds=5) and text

    text = async_to_sync(own)()
    assert [f["request_id"] for f in frames(text, "notice")] == [1]  # not admin2's request


def test_a_live_stream_follows_new_notices_with_their_ids(mock_endpoint, users, login, monkeypatch):
    monkeypatch.setattr(notice_feed, "TICK", 0.05)
    monkeypatch.setattr(notice_views, "KEEPALIVE_SECONDS", 0.3)
    answer = login("admin").get(URL)

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await sync_to_async(_requested)(7, users["support"].pk)
        # The feed takes the notice while the stream is still paused after its
        # first frame (as under load): the stream must still send it.
        (feed,) = notice_feed._feeds[asyncio.get_running_loop()].values()
        async with asyncio.timeout(5):
            while feed.last_id < await sync_to_async(notices.last_id)():
                await asyncio.sleep(0.01)
        return await _until(chunks, lambda t: "event: notice" in t and ": keepalive" in t, 5)

    text = async_to_sync(run)()
    (frame,) = frames(text, "notice")
    assert frame == {"id": notices.last_id(), "kind": "requested", "request_id": 7}
    assert f"id: {frame['id']}\n" in text


def test_a_review_queue_stream_hears_of_its_own_queue_only(mock_endpoint, users, login):
    mine, other = _queue("mine"), _queue("other")
    mark = notices.last_id()
    for queue in (other, mine):
        events.emit(
            events.REVIEW_QUEUE_CHANGED,
            endpoint="local",
            ids={"queue_id": queue.pk, "item_id": 5, "session_id": "s1"},
        )
    answer = login("reviewer").get(f"{_review_url(mine)}?after={mark}")
    assert answer.status_code == 200
    text = async_to_sync(_until)(answer.streaming_content, lambda t: "event: notice" in t)
    (frame,) = frames(text, "notice")
    assert frame["queue_id"] == mine.pk and frame["kind"] == "changed"
    assert login("support").get(_review_url(mine)).status_code == 403


def test_another_endpoints_queue_and_a_bad_cursor_are_refused(mock_endpoint, users, login):
    elsewhere = _queue("elsewhere", endpoint="other")
    reviewer = login("reviewer")
    assert reviewer.get(_review_url(elsewhere)).status_code == 404
    bad = reviewer.get(URL + "?after=12ab")
    assert bad.status_code == 400 and b"must be an event number" in bad.content


def test_a_cursor_older_than_the_kept_notices_says_reset(mock_endpoint, users, login):
    for n in range(3):
        _requested(n, users["support"].pk)
    from hermes_ui.live.models import LiveNotice

    LiveNotice.objects.exclude(pk=notices.last_id()).delete()  # pruned
    answer = login("admin").get(URL + "?after=1")
    text = async_to_sync(_until)(answer.streaming_content, lambda t: "event: notice" in t)
    assert frames(text, "since") == [{"reset": True}]


def test_past_the_stream_cap_a_browser_is_told_to_poll(mock_endpoint, users, login, settings):
    settings.HERMES_UI_LIVE_MAX_STREAMS = 0
    mark = notices.last_id()
    _requested(4, users["support"].pk)
    answer = login("admin").get(f"{URL}?after={mark}")

    async def read():
        async with asyncio.timeout(5):
            return "".join([chunk.decode() async for chunk in answer.streaming_content])

    text = async_to_sync(read)()  # it ends by itself
    assert text.startswith("retry: 30000")
    assert [f["request_id"] for f in frames(text, "notice")] == [4]
    assert frames(text, "poll") == [{"seconds": 30}]


def _notice(notice_id: int, request_id: int, requester: int):
    from hermes_ui.live.models import LiveNotice

    return LiveNotice.objects.create(
        id=notice_id,
        topic=notices.DELETIONS,
        kind="requested",
        created_at=timezone.now(),
        ids={"request_id": request_id},
        users=[requester],
    )


def test_a_notice_that_commits_after_a_higher_one_is_still_sent_once(
    mock_endpoint, users, login, monkeypatch
):
    """On PostgreSQL two workers' notices can commit out of id order: the one with
    the lower id, committed second, reaches an open stream too (without an SSE id)."""
    monkeypatch.setattr(notice_feed, "TICK", 0.05)
    base = notices.last_id() + 10
    answer = login("admin").get(URL)
    support = users["support"].pk

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await sync_to_async(_notice)(base + 2, 2, support)  # id base+1 not yet committed
        text = await _until(chunks, lambda t: 'request_id":2' in t, 5)
        await sync_to_async(_notice)(base + 1, 1, support)  # ... now it is
        text += await _until(chunks, lambda t: 'request_id":1' in t, 5)
        await sync_to_async(_notice)(base + 3, 3, support)
        return text + await _until(chunks, lambda t: 'request_id":3' in t, 5)

    text = async_to_sync(run)()
    assert [f["request_id"] for f in frames(text, "notice")] == [2, 1, 3]
    assert f"id: {base + 2}\n" in text and f"id: {base + 3}\n" in text
    assert f"id: {base + 1}\n" not in text  # the browser's cursor stays at base + 2


def test_the_feed_asks_for_skipped_ids_until_they_expire():
    from types import SimpleNamespace as Row

    feed = notice_feed.NoticeFeed("deletions", last_id=10)
    assert [r.id for r in feed.take([Row(id=11), Row(id=14)], now=0)] == [11, 14]
    assert sorted(feed.gaps) == [12, 13] and feed.last_id == 14
    assert [r.id for r in feed.take([Row(id=13)], now=1)] == [13]  # committed late
    assert [r.id for r in feed.take([Row(id=13), Row(id=14)], now=2)] == []  # never twice
    assert sorted(feed.gaps) == [12]
    feed.take([], now=notice_feed.GAP_SECONDS + 0.5)
    assert feed.gaps == {}
    assert [r.id for r in feed.take([Row(id=12)], now=20)] == []  # too late: dropped
