"""One feed per worker and endpoint: reads new events once, feeds every open stream."""

from __future__ import annotations

import asyncio
import logging
import os
import socket
import time
import weakref
from collections import Counter
from datetime import timedelta

from asgiref.sync import sync_to_async
from django.conf import settings
from django.utils import timezone

from hermes_ui.live import channel, listeners, transcripts
from hermes_ui.platform import metrics
from hermes_ui.platform.db_steps import released

log = logging.getLogger("hermes_ui.live")

TICK = 0.5
BEAT = 5.0
WORKER = f"{socket.gethostname()}:{os.getpid()}"


def _db(fn):
    return sync_to_async(released(fn), thread_sensitive=False)


def overdue_after() -> float:
    """Seconds without a poll after which the live round is taken to be away."""
    return max(10.0, 5 * settings.HERMES_UI_LIVE_SECONDS)


def pause_reason(state, started: float, now: float) -> str:
    """Why live updates are paused ("" if they are not), from ``channel.status``.

    A recent poll's error (a breaker open) counts at once; a poll that is overdue
    only after the live round has had time to notice this watch.
    """
    if state is not None:
        polled_at, error_code = state
        if timezone.now() - polled_at <= timedelta(seconds=overdue_after()):
            return error_code
    if now - started < overdue_after():
        return ""
    return "not_polled"


class Feed:
    def __init__(self, endpoint_id: str, last_id: int):
        self.endpoint_id = endpoint_id
        self.last_id = last_id
        self.queues: set[asyncio.Queue] = set()
        self.sessions: Counter[str] = Counter()
        self.paused = ""
        self.started = time.monotonic()
        self.task: asyncio.Task | None = None
        self.closing = False  # its loop has ended: a new subscriber needs a new feed

    def subscribe(self, session_id: str = "") -> asyncio.Queue:
        queue = listeners.new_queue()
        self.queues.add(queue)
        metrics.LIVE_STREAMS.inc()
        if session_id:
            self.sessions[session_id] += 1
        return queue

    def unsubscribe(self, queue: asyncio.Queue, session_id: str = "") -> None:
        if queue in self.queues:
            metrics.LIVE_STREAMS.dec()
        self.queues.discard(queue)
        if session_id:
            self.sessions[session_id] -= 1
            if self.sessions[session_id] <= 0:
                del self.sessions[session_id]

    def send(self, item: tuple[str, dict]) -> None:
        for queue in self.queues:
            listeners.offer(queue, item)

    async def run(self) -> None:
        beat_at = 0.0
        try:
            while self.queues:
                now = time.monotonic()
                try:
                    if now - beat_at >= BEAT:
                        await _db(channel.beat)(self.endpoint_id, WORKER, list(self.sessions))
                        beat_at = now
                    events = await _db(channel.after)(self.endpoint_id, self.last_id)
                    grew = [
                        sid for event in events for sid in transcripts.stale(event, self.sessions)
                    ]
                    if grew:
                        await _db(transcripts.drop)(self.endpoint_id, grew)
                    state = await _db(channel.status)(self.endpoint_id)
                    reason = pause_reason(state, self.started, now)
                except Exception:  # the database is away: say so, try again
                    log.warning("live feed endpoint=%s: database unavailable", self.endpoint_id)
                    events, reason = [], "database_unavailable"
                for event in events:
                    self.last_id = max(self.last_id, event["id"])
                    self.send(("changes", event))
                if reason != self.paused:
                    self.paused = reason
                    self.send(("status", {"paused": bool(reason), "reason": reason}))
                await asyncio.sleep(TICK)
        finally:
            self.closing = True
            try:
                await _db(channel.forget)(self.endpoint_id, WORKER)
            except Exception:
                log.warning("live feed endpoint=%s: heartbeat not removed", self.endpoint_id)


async def _drop_transcripts(endpoint_id: str, session_ids: list[str]) -> None:
    """Drop cached transcripts; a cache that is down (Redis) only costs the append."""
    try:
        await _db(transcripts.drop)(endpoint_id, session_ids)
    except Exception:
        log.warning("live feed endpoint=%s: cached transcripts not dropped", endpoint_id)


# Event loop -> endpoint id -> its feed: a worker has one loop; tests have several.
_feeds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def open_streams() -> int:
    """Streams open on this worker (its event loops that still run)."""
    loops = [loop for loop in list(_feeds) if not loop.is_closed()]
    return sum(len(feed.queues) for loop in loops for feed in _feeds[loop].values())


async def join(endpoint_id: str, session_id: str = "") -> tuple[Feed, asyncio.Queue]:
    """Subscribe to the endpoint's feed on this loop, starting it if needed."""
    feeds = _feeds.setdefault(asyncio.get_running_loop(), {})
    feed = feeds.get(endpoint_id)
    if feed is None or feed.closing:
        last_id = await _db(channel.last_id)()
        feed = feeds.get(endpoint_id)  # another stream may have started one meanwhile
        if feed is None or feed.closing:
            feed = feeds[endpoint_id] = Feed(endpoint_id, last_id)
    queue = feed.subscribe(session_id)
    if feed.task is None:
        feed.task = asyncio.create_task(feed.run())
        feed.task.add_done_callback(
            lambda _t, f=feed: feeds.get(endpoint_id) is f and feeds.pop(endpoint_id)
        )
    return feed, queue
