"""A streamed turn shared between worker processes through Redis (only with ``REDIS_URL``)."""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import threading
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any, cast

from django.conf import settings

from hermes_ui.platform import redis_link

HEARTBEAT = 1.0
LEASE_SECONDS = 5  # an owner silent this long is dead
KEEP_SECONDS = 3600  # a finished turn's stream stays this long for late reconnects
BLOCK_MS = 1000
# A Redis that stops answering must not hold a caller longer than a lease
# lasts: past this, a call fails (and the lease lapses) instead of hanging.
SOCKET_TIMEOUT = 2.0

log = logging.getLogger("hermes_ui.chat")


class LeaseError(RuntimeError):
    """Redis could not record who runs a turn, so the turn must not be sent."""


def enabled() -> bool:
    return bool(getattr(settings, "REDIS_URL", None))


def _key(turn_id: int, part: str) -> str:
    return f"hui:chat:turn:{turn_id}:{part}"


@functools.cache
def _client(url: str):
    import redis

    return redis.Redis.from_url(
        url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT
    )


def client():
    return _client(settings.REDIS_URL)


# -- the owner's side ----------------------------------------------------------


def claim(turn_id: int, owner: str) -> None:
    import redis

    try:
        client().set(_key(turn_id, "owner"), owner, ex=LEASE_SECONDS)
    except redis.RedisError as exc:
        raise LeaseError(f"could not claim turn {turn_id}: {type(exc).__name__}") from exc


def renew(turn_id: int, owner: str) -> bool:
    """Extend the lease; also says whether another worker asked to cancel the turn."""
    pipe = client().pipeline()
    pipe.set(_key(turn_id, "owner"), owner, ex=LEASE_SECONDS)
    pipe.expire(_key(turn_id, "events"), KEEP_SECONDS)
    pipe.get(_key(turn_id, "cancel"))
    return pipe.execute()[2] is not None


@contextlib.contextmanager
def kept(turn_id: int, owner: str) -> Iterator[None]:
    """Renew a claimed lease from a thread of its own while the block runs, then release it.

    For a turn relayed by a blocking call (the turn without JavaScript): the
    thread that waits for Hermes cannot renew the lease itself.
    """
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(HEARTBEAT):
            try:
                renew(turn_id, owner)
            except Exception:
                log.exception("chat lease renewal failed turn=%s", turn_id)

    thread = threading.Thread(target=beat, name=f"chat-lease-{turn_id}", daemon=True)
    thread.start()
    try:
        yield
    finally:
        stop.set()
        thread.join()
        try:
            release(turn_id)
        except Exception:
            log.exception("chat lease release failed turn=%s", turn_id)


def cancelled_by(turn_id: int) -> int | None:
    raw = client().get(_key(turn_id, "cancel"))
    return int(raw) if raw and raw.isdigit() else None


def release(turn_id: int) -> None:
    pipe = client().pipeline()
    pipe.delete(_key(turn_id, "owner"), _key(turn_id, "cancel"))
    pipe.expire(_key(turn_id, "events"), KEEP_SECONDS)
    pipe.execute()


def forget(turn_ids) -> int:
    """Delete the relayed streams of these turns (erasure); how many streams were held."""
    ids = list(turn_ids)
    if not ids or not enabled():
        return 0
    events = [_key(turn_id, "events") for turn_id in ids]
    held = client().exists(*events)
    client().delete(*events, *[_key(i, part) for i in ids for part in ("owner", "cancel")])
    return int(held)


def append(turn_id: int, kind: str, payload) -> None:
    """``kind`` "e": a provider event ``[seq, name, data, t]``; "p": ``[kind, changes]``."""
    client().xadd(_key(turn_id, "events"), {"k": kind, "j": json.dumps(payload)})


# -- any worker ----------------------------------------------------------------


def owner_alive(turn_id: int) -> bool:
    return bool(client().exists(_key(turn_id, "owner")))


def request_cancel(turn_id: int, user_id: int | None) -> None:
    """Leave a cancel for the owner's heartbeat; ``LeaseError`` when Redis cannot take it."""
    import redis

    try:
        client().set(_key(turn_id, "cancel"), str(user_id or 0), ex=KEEP_SECONDS)
    except redis.RedisError as exc:
        redis_link.failed(exc, "chat cancel")
        raise LeaseError(f"could not pass on the cancel of turn {turn_id}") from exc


def lapsed(turn, now: float | None = None) -> bool:
    """A running turn of another process whose owner stopped renewing its lease.

    While Redis does not answer nobody can tell, and the owner may well be
    relaying the turn: it is not lapsed (settling it would free the session
    for a second turn). It is settled once Redis answers again.
    """
    import redis

    age = (now or time.time()) - turn.created_at.timestamp()
    if age < LEASE_SECONDS or not redis_link.available():
        return False
    try:
        alive = owner_alive(turn.pk)
    except redis.RedisError as exc:
        redis_link.failed(exc, "chat lease")
        return False
    redis_link.answered()
    return not alive


async def follow(turn_id: int, view, apply) -> AsyncIterator:
    """Replay then follow a turn owned elsewhere.

    Yields ``(view, events)`` once (everything so far), then each update that
    ``apply(view, kind, payload, events)`` makes of a new entry, and ``None``
    whenever a read found nothing and the owner's lease has lapsed (the
    caller then settles the turn from the database and stops). Raises
    ``redis.RedisError`` when Redis stops answering.
    """
    import redis.asyncio

    # A blocking read lasts BLOCK_MS; a Redis silent for SOCKET_TIMEOUT is gone (RedisError).
    url = cast(str, settings.REDIS_URL)  # set: turns relay through Redis only with it
    # redis' stubs type stream replies as unions of every shape; these are (id, fields) pairs.
    conn: Any = redis.asyncio.Redis.from_url(
        url, socket_timeout=SOCKET_TIMEOUT, socket_connect_timeout=SOCKET_TIMEOUT
    )
    key = _key(turn_id, "events")
    try:
        events: list = []
        last = "0-0"
        for entry_id, fields in await conn.xrange(key):
            last = entry_id
            apply(view, fields[b"k"].decode(), json.loads(fields[b"j"]), events)
        yield view.copy(), list(events)
        while True:
            answer = await conn.xread({key: last}, block=BLOCK_MS, count=200)
            if not answer:
                if not await conn.exists(_key(turn_id, "owner")):
                    yield None
                continue
            for entry_id, fields in answer[0][1]:
                last = entry_id
                update = apply(view, fields[b"k"].decode(), json.loads(fields[b"j"]), events)
                if update is not None:
                    yield update
    finally:
        await conn.aclose()
