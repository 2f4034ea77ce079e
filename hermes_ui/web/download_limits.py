"""How many downloads (session exports, review datasets) run at once: per person and per process.

Every export holds a thread and a Hermes reader for as long as it streams
(minutes for a long lineage), so this process lets at most
``HERMES_UI_EXPORTS_PER_USER`` of one person's and
``HERMES_UI_EXPORTS_PER_PROCESS`` in total run at once; one more is refused
(``Busy``, answered 429) before Hermes is asked anything.

A slot is taken before the export is planned and held for the whole
download::

    slot = limits.acquire(request.user)          # raises Busy
    with slot:                                   # released on the way out...
        ...
        body = slot.stream(chunks)               # ...unless handed to the stream
        return StreamingHttpResponse(body)

The stream gives the slot back when its last chunk is out, when producing a
chunk fails, and when it is closed early (the client went away; Django closes
the response's iterator). A stream that is never iterated at all (dropped
before its first chunk) gives it back when it is garbage-collected. Release
is idempotent and needs no event loop, so the same calls serve a sync or an
``async def`` view.

The counts live in this process (threads are a per-process resource): with
``WEB_CONCURRENCY`` workers one person can hold up to that many times
``HERMES_UI_EXPORTS_PER_USER``.
"""

from __future__ import annotations

import threading
import weakref
from collections import Counter
from collections.abc import Iterator

from django.conf import settings

PER_USER, PER_PROCESS = "user", "process"


class Busy(Exception):
    """Over a limit: ``scope`` is ``PER_USER`` or ``PER_PROCESS``; ``limit`` the number."""

    def __init__(self, scope: str, limit: int):
        self.scope, self.limit = scope, limit
        if scope == PER_USER:
            text = (
                f"You already have {limit} export{'s' if limit != 1 else ''} downloading, the "
                "most one person may run at once. Wait for one to finish, then try again."
            )
        else:
            text = (
                f"The dashboard is already streaming {limit} exports, the most it runs at "
                "once. Try again in a minute."
            )
        super().__init__(text)
        self.message = text


class Slot:
    """One running export. ``release`` is idempotent and thread-safe."""

    def __init__(self, limiter: Limiter, owner):
        self._limiter, self._owner = limiter, owner
        self._released = False
        self._handed_over = False
        self._lock = threading.Lock()

    @property
    def released(self) -> bool:
        return self._released

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
        self._limiter._give_back(self._owner)

    def stream(self, chunks: Iterator[bytes]) -> Iterator[bytes]:
        """``chunks``, holding this slot until they end, fail or are closed."""
        self._handed_over = True
        held = _Held(chunks, self)
        # Dropped without being closed (a server that discards a response it
        # never started to send): collection gives the slot back.
        weakref.finalize(held, self.release)
        return held

    def __enter__(self) -> Slot:
        return self

    def __exit__(self, *exc) -> None:
        if not self._handed_over or exc[0] is not None:
            self.release()


class _Held:
    """An iterator over ``chunks`` that gives ``slot`` back when they end or fail, and on
    ``close()`` even before the first chunk (Django closes a response's iterator when the
    response is closed; ``stream.as_async`` closes it when the client went away)."""

    def __init__(self, chunks: Iterator[bytes], slot: Slot):
        self._chunks, self._slot = chunks, slot

    def __iter__(self) -> _Held:
        return self

    def __next__(self) -> bytes:
        try:
            return next(self._chunks)
        except BaseException:  # the end (StopIteration), a failure, or a cancellation
            self._slot.release()
            raise

    def close(self) -> None:
        try:
            close = getattr(self._chunks, "close", None)
            if close is not None:
                close()
        finally:
            self._slot.release()


class Limiter:
    """The counts of one process."""

    def __init__(self):
        self._lock = threading.Lock()
        self._per_owner: Counter = Counter()
        self._total = 0

    def acquire(self, user) -> Slot:
        owner = user.pk
        per_user = settings.HERMES_UI_EXPORTS_PER_USER
        per_process = settings.HERMES_UI_EXPORTS_PER_PROCESS
        with self._lock:
            if self._per_owner[owner] >= per_user:
                raise Busy(PER_USER, per_user)
            if self._total >= per_process:
                raise Busy(PER_PROCESS, per_process)
            self._per_owner[owner] += 1
            self._total += 1
        return Slot(self, owner)

    def running(self, user=None) -> int:
        with self._lock:
            return self._total if user is None else self._per_owner[user.pk]

    def _give_back(self, owner) -> None:
        with self._lock:
            self._per_owner[owner] -= 1
            if self._per_owner[owner] <= 0:
                del self._per_owner[owner]
            self._total -= 1


LIMITER = Limiter()


def acquire(user) -> Slot:
    """A slot for one export by ``user``; raises ``Busy`` over either limit."""
    return LIMITER.acquire(user)


def running(user=None) -> int:
    """Exports running now in this process (of ``user``, or in total)."""
    return LIMITER.running(user)
