"""A person's open streams counted across every worker, in Redis (only with ``REDIS_URL``)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field

from asgiref.sync import sync_to_async
from django.conf import settings

from hermes_ui.platform import redis_link

log = logging.getLogger("hermes_ui.live")

PREFIX = "hui:live:"
RENEW_SECONDS = 1.0  # how late a stream replaced on another worker ends, at most
LEASE_SECONDS = 10.0  # a slot whose worker stopped renewing it lapses after this
REPLACED = b"replaced"

# ARGV: prefix, lease ms, cap, count of held slots, then (user, token, opened) for
# each held slot, then (user, token) for each released one. Held slots are renewed
# (re-added if Redis lost them), released ones dropped, lapsed ones pruned, and each
# touched person's oldest past the cap marked replaced. Returns the held tokens that
# are marked replaced (now or by another worker before).
_SYNC = """
local prefix, lease, cap = ARGV[1], tonumber(ARGV[2]), tonumber(ARGV[3])
local held = tonumber(ARGV[4])
local ended, mine, people = {}, {}, {}
local i = 5
for _ = 1, held do
  local user, token, opened = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  i = i + 3
  local alive = prefix .. 'stream:' .. token
  if redis.call('GET', alive) == 'replaced' then
    table.insert(ended, token)
  else
    local person = prefix .. 'person:' .. user
    redis.call('SET', alive, '1', 'PX', lease)
    redis.call('ZADD', person, 'NX', opened, token)
    redis.call('PEXPIRE', person, lease)
    mine[token] = true
    people[user] = true
  end
end
while i <= #ARGV do
  redis.call('ZREM', prefix .. 'person:' .. ARGV[i], ARGV[i + 1])
  redis.call('DEL', prefix .. 'stream:' .. ARGV[i + 1])
  i = i + 2
end
for user in pairs(people) do
  local person = prefix .. 'person:' .. user
  local live = {}
  for _, token in ipairs(redis.call('ZRANGE', person, 0, -1)) do
    if redis.call('GET', prefix .. 'stream:' .. token) == '1' then
      table.insert(live, token)
    else
      redis.call('ZREM', person, token)
    end
  end
  for k = 1, #live - cap do
    redis.call('ZREM', person, live[k])
    redis.call('SET', prefix .. 'stream:' .. live[k], 'replaced', 'PX', lease)
    if mine[live[k]] then
      table.insert(ended, live[k])
    end
  end
end
return ended
"""


@dataclass(frozen=True)
class Slot:
    user_id: int
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    opened: float = field(default_factory=time.time)  # wall clock: compared across workers


def sync(conn, held: list[Slot], released: list[Slot], cap: int) -> set[str]:
    """One round trip: renew ``held``, drop ``released``, apply the cap; the held tokens
    that must end (``replaced``). Raises ``redis.RedisError`` when Redis does not answer."""
    args: list = [PREFIX, int(LEASE_SECONDS * 1000), cap, len(held)]
    for slot in held:
        args += [slot.user_id, slot.token, repr(slot.opened * 1000)]
    for slot in released:
        args += [slot.user_id, slot.token]
    ended = conn.register_script(_SYNC)(args=args)  # EVALSHA, loaded once
    return {token.decode() if isinstance(token, bytes) else token for token in ended}


class Keeper:
    """One event loop's (a worker's) streams in Redis: renews them, ends the replaced.

    Runs while the loop holds a stream or has a release to send; ``end(queue)``
    ends a stream marked replaced (``listeners.end``).
    """

    def __init__(self, end: Callable[[asyncio.Queue], None]):
        self.end = end
        self.held: dict[asyncio.Queue, Slot] = {}
        self.released: list[tuple[Slot, float]] = []  # and when (monotonic)
        self.wake = asyncio.Event()
        self.task: asyncio.Task | None = None

    def hold(self, user_id: int, queue: asyncio.Queue) -> None:
        self.held[queue] = Slot(user_id)
        self._poke()

    def let_go(self, queue: asyncio.Queue) -> None:
        slot = self.held.pop(queue, None)
        if slot is not None:
            self.released.append((slot, time.monotonic()))
            self._poke()

    def _poke(self) -> None:
        self.wake.set()
        if self.task is None or self.task.done():
            self.task = asyncio.get_running_loop().create_task(self.run())

    async def run(self) -> None:
        while self.held or self.released:
            self.wake.clear()
            await self.once()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), RENEW_SECONDS)

    async def once(self) -> None:
        """One sync; a Redis that does not answer leaves every stream as it is."""
        lapsed = time.monotonic() - LEASE_SECONDS
        self.released = [(slot, at) for slot, at in self.released if at > lapsed]
        if not redis_link.available():
            return
        import redis

        held = list(self.held.items())
        released, self.released = self.released, []
        cap = settings.HERMES_UI_LIVE_STREAMS_PER_PERSON
        try:
            ended = await sync_to_async(sync, thread_sensitive=False)(
                redis_link.client(), [slot for _q, slot in held], [s for s, _at in released], cap
            )
        except Exception as exc:  # never the stream's concern: the per-worker cap still holds
            self.released = released + self.released  # sent again, unless lapsed by then
            if isinstance(exc, redis.RedisError):
                redis_link.failed(exc, "live stream slots")
            else:
                log.exception("live stream slots: sync failed")
            return
        redis_link.answered()
        for queue, slot in held:
            if slot.token in ended and self.held.get(queue) is slot:
                self.end(queue)


# Event loop -> its keeper (a worker has one loop; tests run several).
_keepers: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def keeper(end: Callable[[asyncio.Queue], None]) -> Keeper | None:
    """This loop's keeper, or ``None`` without ``REDIS_URL``."""
    if not redis_link.configured():
        return None
    loop = asyncio.get_running_loop()
    found = _keepers.get(loop)
    if found is None:
        found = _keepers[loop] = Keeper(end)
    return found
