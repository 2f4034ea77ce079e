"""Open streams follow their person: signed out, deactivated or demoted ends them, one
person holds a bounded number, a client that stops reading is cut off, and a watched
session slot needs a session that exists."""

from __future__ import annotations

import asyncio
import time
from datetime import timedelta

import pytest
from asgiref.sync import async_to_sync, sync_to_async
from django.conf import settings
from django.contrib.sessions.models import Session
from django.core.cache import caches
from django.utils import timezone

from hermes_ui.access.grants import set_role
from hermes_ui.index.models import IndexedSession
from hermes_ui.live import changes as c
from hermes_ui.live import channel, fanout, listeners, notice_feed
from hermes_ui.live.models import LiveWatch
from hermes_ui.platform.endpoints import get_endpoint
from tests.live.test_stream import _until, frames

pytestmark = pytest.mark.django_db(transaction=True)
URL = "/e/local/live/"
RECHECK = 0.3


@pytest.fixture
def quick(settings, monkeypatch):
    settings.HERMES_UI_LIVE_RECHECK_SECONDS = RECHECK
    monkeypatch.setattr(fanout, "TICK", 0.05)
    monkeypatch.setattr(notice_feed, "TICK", 0.05)


async def _rest(chunks, seconds: float = 10.0) -> str:
    """Everything the stream still sends; fails if it does not end by itself in time."""
    text = ""
    async with asyncio.timeout(seconds):
        async for chunk in chunks:
            text += chunk.decode()
    return text


def _sign_out(client, users):
    client.logout()


def _deactivate(client, users):
    users["support"].is_active = False
    users["support"].save()


def _expire(client, users):
    gone = timezone.now() - timedelta(seconds=1)
    Session.objects.filter(session_key=client.cookies["sessionid"].value).update(expire_date=gone)
    caches[settings.SESSION_CACHE_ALIAS].clear()  # as the cached copy's own timeout would


@pytest.mark.parametrize("change", [_sign_out, _expire, _deactivate])
def test_a_change_stream_ends_within_the_interval_once_its_person_may_not_listen(
    empty_hermes, users, login, quick, change
):
    client = login("support")
    answer = client.get(URL)

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await sync_to_async(change)(client, users)
        changed = time.monotonic()
        text = await _rest(chunks)
        return text, time.monotonic() - changed

    text, took = async_to_sync(run)()
    assert frames(text, "end") == [{"reason": "access_changed"}]
    assert took < RECHECK + 2  # the interval, plus a loaded machine's slack


def test_a_demoted_admin_stops_hearing_of_deletions(empty_hermes, users, login, quick):
    answer = login("admin").get("/live/deletions/")

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await sync_to_async(set_role)(users["admin"], "support")
        return await _rest(chunks)

    assert frames(async_to_sync(run)(), "end") == [{"reason": "access_changed"}]


def test_an_unchanged_person_keeps_listening_past_several_checks(empty_hermes, login, quick):
    answer = login("support").get(URL)

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await asyncio.sleep(RECHECK * 4)  # several checks pass; then it must still deliver
        sent = (await sync_to_async(channel.publish)("local", [["s1", [c.NEW]]])).id
        text = await _until(chunks, lambda t: "event: changes" in t)
        await chunks.aclose()
        return text, sent

    text, sent = async_to_sync(run)()
    assert [f["id"] for f in frames(text, "changes")] == [sent]


def test_the_sixth_stream_of_a_person_closes_their_oldest(empty_hermes, login, settings, quick):
    assert settings.HERMES_UI_LIVE_STREAMS_PER_PERSON == 5  # the default
    support = login("support")
    answers = [support.get(URL) for _ in range(6)]
    other = login("reviewer").get(URL)

    async def run():
        for answer in answers:  # opened in this order
            await _until(answer.streaming_content, lambda t: "retry:" in t)
        await _until(other.streaming_content, lambda t: "retry:" in t)
        oldest = await _rest(answers[0].streaming_content, seconds=5)
        sent = (await sync_to_async(channel.publish)("local", [["s2", [c.NEW]]])).id
        heard = [
            await _until(a.streaming_content, lambda t: "event: changes" in t)
            for a in [*answers[1:], other]
        ]
        for answer in [*answers[1:], other]:
            await answer.streaming_content.aclose()
        return oldest, heard, sent

    oldest, heard, sent = async_to_sync(run)()
    assert frames(oldest, "poll") == [{"seconds": 30, "reason": "replaced"}]
    assert "retry: 30000" in oldest
    assert all([f["id"] for f in frames(text, "changes")] == [sent] for text in heard)


def test_a_client_that_stops_reading_is_cut_off_and_resumes(
    empty_hermes, login, quick, monkeypatch
):
    monkeypatch.setattr(listeners, "QUEUE_LIMIT", 5)
    mark = channel.last_id()
    client = login("support")
    answer = client.get(URL)

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        (feed,) = fanout._feeds[asyncio.get_running_loop()].values()
        (queue,) = feed.queues
        sizes = []
        for n in range(20):  # the client reads none of them
            last = (await sync_to_async(channel.publish)("local", [[f"s{n}", [c.NEW]]])).id
            async with asyncio.timeout(5):
                while feed.last_id < last:
                    await asyncio.sleep(0.01)
            sizes.append(queue.qsize())
        return sizes, await _rest(chunks), last

    sizes, text, last = async_to_sync(run)()
    assert max(sizes) <= 5
    assert frames(text, "end") == [{"reason": "slow"}]
    # The browser reconnects with the last id it got and is told what it missed.
    again = client.get(URL, headers={"Last-Event-ID": str(mark)})
    resumed = async_to_sync(_until)(again.streaming_content, lambda t: "event: since" in t)
    (since,) = frames(resumed, "since")
    assert since["id"] == last and len(since["changes"]) == 20


def test_a_bogus_session_takes_no_watched_slot(empty_hermes, login, quick):
    now = timezone.now()
    IndexedSession.objects.create(
        **get_endpoint("local").scope(),
        session_id="indexed-1",
        digest="x",
        first_seen_at=now,
        last_seen_at=now,
    )
    support = login("support")
    bogus = [support.get(f"{URL}?session=bogus-{n}") for n in range(25)]
    real = support.get(f"{URL}?session=indexed-1")

    async def run():
        for answer in [*bogus, real]:
            await _until(answer.streaming_content, lambda t: "retry:" in t)
        watches = LiveWatch.objects.filter(endpoint="local")
        async with asyncio.timeout(5):  # the feed's first heartbeat
            while not await sync_to_async(watches.exists)():
                await asyncio.sleep(0.05)
        watch = await sync_to_async(watches.get)()
        for answer in [*bogus, real]:
            await answer.streaming_content.aclose()
        return watch.sessions

    assert async_to_sync(run)() == ["indexed-1"]
