"""One feed per worker and topic of dashboard notices: one read per tick for all its streams."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable

from asgiref.sync import sync_to_async

from hermes_ui.live import listeners, notices
from hermes_ui.platform.db_steps import released

log = logging.getLogger("hermes_ui.live")

TICK = 0.5
# How long an id skipped over may still commit (an insert is one short transaction),
# and how many such ids a feed keeps asking for.
GAP_SECONDS = 10.0
MAX_GAPS = 500


def _db(fn):
    return sync_to_async(released(fn), thread_sensitive=False)


class NoticeFeed:
    def __init__(self, topic: str, last_id: int):
        self.topic = topic
        self.last_id = last_id
        self.queues: dict[asyncio.Queue, Callable] = {}
        self.task: asyncio.Task | None = None
        self.closing = False
        self.gaps: dict[int, float] = {}  # id skipped over -> until when to ask for it

    async def run(self) -> None:
        try:
            while self.queues:
                try:
                    rows = await _db(notices.after)(self.topic, self.last_id, also=self.gaps)
                except Exception:  # the database is away: try again next tick
                    log.warning("live notices topic=%s: database unavailable", self.topic)
                    rows = []
                for row in self.take(rows, time.monotonic()):
                    for queue, wants in list(self.queues.items()):
                        if wants(row):
                            listeners.offer(queue, row)
                await asyncio.sleep(TICK)
        finally:
            self.closing = True

    def take(self, rows, now: float) -> list:
        """The rows not sent before; the ids skipped over become gaps, expired ones dropped."""
        new = []
        for row in rows:
            if self.gaps.pop(row.id, None) is not None:
                new.append(row)  # committed late
            elif row.id > self.last_id:
                first = max(self.last_id + 1, row.id - MAX_GAPS)
                self.gaps.update(dict.fromkeys(range(first, row.id), now + GAP_SECONDS))
                self.last_id = row.id
                new.append(row)
        for gap, until in list(self.gaps.items()):
            if until <= now:
                del self.gaps[gap]
        if len(self.gaps) > MAX_GAPS:  # the newest kept
            self.gaps = dict(sorted(self.gaps.items())[-MAX_GAPS:])
        return new


_feeds: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def join(topic: str, wants: Callable) -> tuple[NoticeFeed, asyncio.Queue]:
    feeds = _feeds.setdefault(asyncio.get_running_loop(), {})
    feed = feeds.get(topic)
    if feed is None or feed.closing:
        last_id = await _db(notices.last_id)()
        feed = feeds.get(topic)
        if feed is None or feed.closing:
            feed = feeds[topic] = NoticeFeed(topic, last_id)
    queue = listeners.new_queue()
    feed.queues[queue] = wants
    if feed.task is None:
        feed.task = asyncio.create_task(feed.run())
        feed.task.add_done_callback(lambda _t, f=feed: feeds.get(topic) is f and feeds.pop(topic))
    return feed, queue


def leave(feed: NoticeFeed, queue: asyncio.Queue) -> None:
    feed.queues.pop(queue, None)


def open_streams() -> int:
    loops = [loop for loop in list(_feeds) if not loop.is_closed()]
    return sum(len(feed.queues) for loop in loops for feed in _feeds[loop].values())
