"""Turns being relayed right now, in this process's memory, and who is watching them.

The relay (on its own event loop thread) publishes each update; every
browser stream subscribes from its own event loop and receives the updates
through ``call_soon_threadsafe``, so a watcher never polls and never blocks
the relay. A watcher that connects late first gets everything retained so
far, atomically with its subscription, so nothing is missed or doubled.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from dataclasses import dataclass, field

from hermes_ui.chat.progress import TurnView


@dataclass
class Update:
    """One thing a watcher should show: a ``kind`` and what it needs to render it."""

    kind: str  # "delta", "tools", "status", "snapshot", "end"
    seq: int
    text: str = ""
    view: TurnView | None = None


@dataclass
class Subscription:
    loop: asyncio.AbstractEventLoop
    queue: asyncio.Queue = field(default_factory=asyncio.Queue)


def fold_event(view: TurnView, seq: int, name: str, data: dict) -> Update | None:
    """Fold one provider event into ``view``; the update watchers should show, if any."""
    changed = view.apply(seq, name, data)
    if changed == "delta":
        return Update("delta", seq, text=data.get("delta") or "")
    return Update(changed, seq, view=view.copy()) if changed else None


def publish_change(view: TurnView, kind: str, changes: dict) -> Update:
    """Change the view (state, durability...) and say so."""
    for name, value in changes.items():
        setattr(view, name, value)
    return Update(kind, view.last_seq, view=view.copy())


class LiveTurn:
    def __init__(self, view: TurnView):
        self.view = view
        self.events: list[tuple[int, str, dict, float]] = []
        self.finished = threading.Event()
        self.cancel_requested = False
        self.cancelled_by = None
        self.task: asyncio.Task | None = None
        # With Redis: ``sink(kind, payload)`` appends each change to the turn's
        # shared stream, so watchers on other workers see what this one sees.
        self.sink = None
        self._watchers: list[Subscription] = []
        self._lock = threading.Lock()
        self._closed = False
        self._ended = False  # an "end" update was published

    @property
    def turn_id(self) -> int:
        return self.view.turn_id

    def fold(self, seq: int, name: str, data: dict, received_at: float) -> Update | None:
        """Retain and fold one provider event; publish what it changed."""
        with self._lock:
            self.events.append((seq, name, data, received_at))
            if self.sink is not None:
                self.sink("e", [seq, name, data, received_at])
            update = fold_event(self.view, seq, name, data)
            if update is not None:
                self._fan_out(update)
            return update

    def keepalive(self) -> None:
        with self._lock:
            self.view.keepalives += 1

    def publish(self, kind: str, **changes) -> None:
        """Change the view (state, durability...) and publish it."""
        with self._lock:
            if self.sink is not None:
                self.sink("p", [kind, changes])
            self._ended = self._ended or kind == "end"
            self._fan_out(publish_change(self.view, kind, changes))

    def subscribe(self, loop: asyncio.AbstractEventLoop):
        """(view so far, retained events, subscription), or None once the turn is over."""
        with self._lock:
            if self._closed:
                return None
            sub = Subscription(loop)
            self._watchers.append(sub)
            return self.view.copy(), list(self.events), sub

    def unsubscribe(self, sub: Subscription) -> None:
        with self._lock:
            if sub in self._watchers:
                self._watchers.remove(sub)

    def close(self) -> None:
        """The turn's final state is stored: late watchers read it from the database.

        A watcher waits for an "end" update to close its stream; if the relay
        stopped without publishing one, each watcher gets one now.
        """
        with self._lock:
            self._closed = True
            if not self._ended:
                self._ended = True
                self._fan_out(Update("end", self.view.last_seq, view=self.view.copy()))
            self._watchers.clear()
        self.finished.set()

    def _fan_out(self, update: Update) -> None:
        for sub in self._watchers:
            with contextlib.suppress(RuntimeError):  # that watcher's loop is gone
                sub.loop.call_soon_threadsafe(sub.queue.put_nowait, update)


_LIVE: dict[int, LiveTurn] = {}
_LIVE_LOCK = threading.Lock()


def register(live: LiveTurn) -> None:
    with _LIVE_LOCK:
        _LIVE[live.turn_id] = live


def unregister(turn_id: int) -> None:
    with _LIVE_LOCK:
        _LIVE.pop(turn_id, None)


def get(turn_id: int) -> LiveTurn | None:
    with _LIVE_LOCK:
        return _LIVE.get(turn_id)


def all_live() -> list[LiveTurn]:
    with _LIVE_LOCK:
        return list(_LIVE.values())
