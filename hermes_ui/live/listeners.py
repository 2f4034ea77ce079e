"""Who listens to an open stream, checked again while it stays open.

The check compares the person's whole access (``hermes_ui.access``: every
grant, per endpoint and source) with what it was when the stream opened, so
a grant taken away ends the stream within ``HERMES_UI_LIVE_RECHECK_SECONDS``.
"""

from __future__ import annotations

import asyncio
import time
import weakref
from dataclasses import dataclass
from importlib import import_module

from asgiref.sync import sync_to_async
from django.conf import settings
from django.contrib.auth import HASH_SESSION_KEY, SESSION_KEY, get_user_model
from django.utils.crypto import constant_time_compare

from hermes_ui.access.rules import Access, access_of
from hermes_ui.live import slots
from hermes_ui.platform.db_steps import released

# Items one stream's queue holds before its client counts as gone.
QUEUE_LIMIT = 500


@dataclass(frozen=True)
class Ended:
    """Put in a stream's queue to end it; ``reason`` goes to the browser."""

    reason: str


def new_queue() -> asyncio.Queue:
    return asyncio.Queue(maxsize=QUEUE_LIMIT)


def offer(queue: asyncio.Queue, item) -> None:
    """Queue ``item``; a full queue's stream is ended instead (its client stopped reading)."""
    try:
        queue.put_nowait(item)
    except asyncio.QueueFull:
        end(queue, "slow")


def end(queue: asyncio.Queue, reason: str) -> None:
    """Empty the queue and leave only the end in it: what it held is resumed by the cursor."""
    while not queue.empty():
        queue.get_nowait()
    queue.put_nowait(Ended(reason))


@dataclass
class Listener:
    user_id: int
    session_key: str
    access: Access  # what the person might see when the stream opened
    checked_at: float

    def wait(self, keepalive: float) -> float:
        """Seconds to wait for the queue before the next keepalive or check."""
        due = self.checked_at + settings.HERMES_UI_LIVE_RECHECK_SECONDS - time.monotonic()
        return max(0.0, min(keepalive, due))

    async def still_allowed(self) -> bool:
        """True until the check is due; then whether nothing about the person changed."""
        if time.monotonic() - self.checked_at < settings.HERMES_UI_LIVE_RECHECK_SECONDS:
            return True
        self.checked_at = time.monotonic()
        return await sync_to_async(released(self._unchanged), thread_sensitive=False)()

    def _unchanged(self) -> bool:
        store = import_module(settings.SESSION_ENGINE).SessionStore(self.session_key)
        data = store.load()  # {} once signed out or expired
        if data.get(SESSION_KEY) != str(self.user_id):
            return False
        user = get_user_model().objects.filter(pk=self.user_id).first()
        if user is None or not user.is_active:
            return False
        stored_hash = data.get(HASH_SESSION_KEY) or ""
        if not constant_time_compare(stored_hash, user.get_session_auth_hash()):
            return False  # the password changed: Django signs this login out too
        return access_of(user) == self.access  # a fresh user: grants read again


async def listener(request) -> Listener:
    """The person opening a stream, as they are now."""
    user = await request.auser()
    access = await sync_to_async(released(access_of), thread_sensitive=False)(user)
    return Listener(user.pk, request.session.session_key or "", access, time.monotonic())


async def items(queue: asyncio.Queue, who: Listener, keepalive: float):
    """The queue's items as they come, ``None`` when a keepalive is due, and an
    ``Ended`` last when the stream must end (its queue was ended, or the person changed)."""
    while True:
        if not await who.still_allowed():
            yield Ended("access_changed")
            return
        try:
            item = await asyncio.wait_for(queue.get(), who.wait(keepalive))
        except TimeoutError:
            yield None
            continue
        yield item
        if isinstance(item, Ended):
            return


# Event loop -> person -> their open streams' queues, oldest first (one loop per
# worker; tests run several).
_held: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def hold(who: Listener, queue: asyncio.Queue) -> None:
    """Count one more stream of the person; past the cap their oldest is ended.

    Here at once for this worker's streams; with Redis also across workers,
    a moment later (``slots``).
    """
    mine = _held.setdefault(asyncio.get_running_loop(), {}).setdefault(who.user_id, [])
    mine.append(queue)
    while len(mine) > settings.HERMES_UI_LIVE_STREAMS_PER_PERSON:
        end(mine.pop(0), "replaced")
    keeper = slots.keeper(_replaced)
    if keeper is not None:
        keeper.hold(who.user_id, queue)


def let_go(who: Listener, queue: asyncio.Queue) -> None:
    """Free the stream's slot (it ended, for whatever reason)."""
    held = _held.get(asyncio.get_running_loop(), {})
    mine = held.get(who.user_id, [])
    if queue in mine:
        mine.remove(queue)
    if not mine:
        held.pop(who.user_id, None)
    keeper = slots.keeper(_replaced)
    if keeper is not None:
        keeper.let_go(queue)


def _replaced(queue: asyncio.Queue) -> None:
    end(queue, "replaced")
