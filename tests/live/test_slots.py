"""One person's stream slots counted across workers in Redis (``live.slots``), and the
per-worker cap that is all that holds while Redis is away."""

from __future__ import annotations

import asyncio
import logging
import time

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from devtools.peer.launcher import free_port
from hermes_ui.live import changes as c
from hermes_ui.live import channel, listeners, slots
from hermes_ui.platform import redis_link
from tests.live.test_listeners import URL, _rest, quick  # noqa: F401 (a fixture)
from tests.live.test_stream import _until, frames

CAP = 5


@pytest.fixture(autouse=True)
def redis_answers(monkeypatch):
    """No quiet period left over from another test's outage."""
    monkeypatch.setattr(redis_link, "_down_until", 0.0)
    monkeypatch.setattr(redis_link.OUTAGE, "_since", None)


def worker(name: str, first: int, n: int = 3, user: int = 1) -> list[slots.Slot]:
    return [slots.Slot(user, f"{name}{k}", opened=first + k) for k in range(n)]


def held(conn, user: int = 1) -> list[str]:
    return [t.decode() for t in conn.zrange(f"{slots.PREFIX}person:{user}", 0, -1)]


def test_the_sixth_slot_anywhere_marks_the_oldest_which_its_worker_then_hears(with_redis):
    a, b = worker("a", 0), worker("b", 10)
    assert slots.sync(with_redis, a, [], CAP) == set()
    assert slots.sync(with_redis, b, [], CAP) == set()  # the oldest is A's: B ends nothing
    assert held(with_redis) == ["a1", "a2", "b0", "b1", "b2"]
    assert slots.sync(with_redis, a, [], CAP) == {"a0"}  # A's next renewal hears it
    assert slots.sync(with_redis, a[1:], [a[0]], CAP) == set()  # ended, and let go
    assert held(with_redis) == ["a1", "a2", "b0", "b1", "b2"]
    other = worker("o", 20, n=CAP, user=2)  # another person's slots are their own
    assert slots.sync(with_redis, other, [], CAP) == set()
    assert held(with_redis, 2) == [s.token for s in other]


def test_a_released_slot_makes_room_for_a_new_one(with_redis):
    a, b = worker("a", 0, n=2), worker("b", 10)
    slots.sync(with_redis, a, [], CAP)
    slots.sync(with_redis, b, [], CAP)
    assert slots.sync(with_redis, b[1:], [b[0]], CAP) == set()
    newer = [*a, slots.Slot(1, "a9", opened=30)]
    assert slots.sync(with_redis, newer, [], CAP) == set()
    assert slots.sync(with_redis, b[1:], [], CAP) == set()
    assert held(with_redis) == ["a0", "a1", "b1", "b2", "a9"]


def test_a_dead_workers_slots_lapse(with_redis, monkeypatch):
    monkeypatch.setattr(slots, "LEASE_SECONDS", 0.3)
    slots.sync(with_redis, worker("a", 0, n=CAP), [], CAP)  # then the worker dies
    time.sleep(0.5)
    assert slots.sync(with_redis, worker("b", 10), [], CAP) == set()
    assert held(with_redis) == ["b0", "b1", "b2"]


def test_slots_redis_forgot_come_back_in_the_order_they_opened(with_redis):
    a, b = worker("a", 0), worker("b", 10)
    slots.sync(with_redis, a, [], CAP)
    slots.sync(with_redis, b, [], CAP)
    with_redis.flushdb()  # a Redis restarted without its data
    assert slots.sync(with_redis, b, [], CAP) == set()
    assert slots.sync(with_redis, a, [], CAP) == {"a0"}  # still the oldest


def test_the_keeper_ends_its_stream_replaced_elsewhere_and_frees_ended_ones(with_redis):
    async def until(check, seconds: float = 5.0):
        async with asyncio.timeout(seconds):
            while not await asyncio.to_thread(check):
                await asyncio.sleep(0.05)

    async def run():
        ended = []
        keeper = slots.Keeper(ended.append)
        oldest, gone = asyncio.Queue(), asyncio.Queue()
        keeper.hold(1, oldest)
        keeper.hold(1, gone)
        await until(lambda: len(held(with_redis)) == 2)
        keeper.let_go(gone)
        await until(lambda: len(held(with_redis)) == 1)
        others = [slots.Slot(1, f"b{k}") for k in range(CAP)]  # opened later, elsewhere
        await asyncio.to_thread(slots.sync, with_redis, others, [], CAP)
        await until(lambda: ended == [oldest])  # within a renewal, and only that one
        keeper.let_go(oldest)
        await until(lambda: keeper.task.done())  # nothing left to hold or to let go
        assert ended == [oldest] and held(with_redis) == [s.token for s in others]

    asyncio.run(run())


@pytest.fixture
def redis_away(settings, monkeypatch):
    """``REDIS_URL`` at a port nobody listens on (the caches' outage is tests/platform's)."""
    monkeypatch.setattr(redis_link, "DOWN_SECONDS", 0.2)
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"


@pytest.fixture(params=["redis", "redis_away", "no_redis"])
def redis_setup(request):
    if request.param != "no_redis":
        request.getfixturevalue("with_redis" if request.param == "redis" else request.param)
    return request.param


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("quick")
def test_one_worker_ends_the_oldest_of_six_with_redis_away_or_not(
    empty_hermes, login, redis_setup, caplog
):
    caplog.set_level(logging.WARNING, logger="hermes_ui.redis")
    support = login("support")
    answers = [support.get(URL) for _ in range(CAP + 1)]
    assert all(answer.status_code == 200 for answer in answers)

    async def run():
        for answer in answers:  # opened in this order
            await _until(answer.streaming_content, lambda t: "retry:" in t)
        oldest = await _rest(answers[0].streaming_content, seconds=5)
        await asyncio.sleep(slots.RENEW_SECONDS * 2)  # Redis, if any, agrees by now
        sent = (await sync_to_async(channel.publish)("local", [["s3", [c.NEW]]])).id
        heard = [
            await _until(a.streaming_content, lambda t: "event: changes" in t) for a in answers[1:]
        ]
        for answer in answers[1:]:
            await answer.streaming_content.aclose()
        return oldest, heard, sent

    oldest, heard, sent = async_to_sync(run)()
    assert frames(oldest, "poll") == [{"seconds": 30, "reason": "replaced"}]
    assert all(frames(text, "poll") == [] for text in heard)
    assert all([f["id"] for f in frames(text, "changes")] == [sent] for text in heard)
    outage = [r for r in caplog.records if r.name == "hermes_ui.redis"]
    assert len(outage) == (1 if redis_setup == "redis_away" else 0)  # said once, not per try


def test_a_stream_never_waits_on_a_redis_that_is_away(redis_away, monkeypatch):
    monkeypatch.setattr(slots, "LEASE_SECONDS", 0.5)

    async def run():
        keeper = slots.keeper(listeners._replaced)
        queue = listeners.new_queue()
        started = time.monotonic()
        keeper.hold(1, queue)
        keeper.let_go(queue)
        took = time.monotonic() - started
        async with asyncio.timeout(5):
            await keeper.task  # gives up on the release once its lease lapsed anyway
        return took, queue.empty()

    took, untouched = asyncio.run(run())
    assert took < 0.05 and untouched
