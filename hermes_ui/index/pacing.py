"""How fast a sync may call Hermes' session list: one call at a time, paced by its latency.

Each list call is a whole-table query on Hermes' side (about 0.7 s at
100,000 sessions), and while it runs Hermes answers everybody else late: a
sweep that pages back to back made a transcript read 200 x slower for the
CLI, Telegram, cron jobs and other dashboards. So a sync sends one list call
at a time and watches how long each one takes, the way congestion control
watches round trips (additive increase, multiplicative decrease):

- a call slower than the latency target (``HERMES_INDEX_PACE_TARGET_MS``)
  doubles the pause before the next one (at least the minimum pause,
  ``HERMES_INDEX_PACE_MIN_PAUSE_MS``), and a call ``k`` times the target
  pauses at least ``k - 1`` times itself at once, so the sweep never takes
  more than ``1/k`` of Hermes' time: without that, a sweep of a big table
  doubled its way up from the minimum pause and spent its first calls (0.45 s
  each at 100,000 sessions) nearly back to back, which other clients felt;
- a call within the target shortens the pause by the minimum pause, down to
  none: a small or idle Hermes is swept at full speed;
- a pause is never longer than ``HERMES_INDEX_PACE_MAX_STRETCH - 1`` times
  the call before it, so a sweep takes at most that many times its
  full-speed duration, and Hermes spends at most 1/stretch of its time on
  the dashboard's list calls (1 turns pacing off).

The pace (the current pause, the calls' p95) goes into the sync's progress
and its last report, which the endpoints page shows ("sweeping at 1 call per
3 s, Hermes p95 4 ms"). Pauses end at once when the process is asked to stop
(``stopping``). Pages never wait for any of this: they read the index.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from django.conf import settings

from hermes_ui.index import stopping

WINDOW = 50  # recent list calls the p95 is taken over


@dataclass
class Pacer:
    target: float  # seconds
    min_pause: float  # seconds
    max_stretch: int
    pause: float = 0.0  # seconds to wait before the next call
    calls: int = 0
    paused: float = 0.0  # seconds waited so far
    recent: deque = field(default_factory=lambda: deque(maxlen=WINDOW))
    pauses: list = field(default_factory=list)  # every pause decided, for tests and the bench
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def from_settings(cls) -> Pacer:
        return cls(
            target=settings.HERMES_INDEX_PACE_TARGET_MS / 1000,
            min_pause=settings.HERMES_INDEX_PACE_MIN_PAUSE_MS / 1000,
            max_stretch=settings.HERMES_INDEX_PACE_MAX_STRETCH,
        )

    def wait(self) -> None:
        """Before a list call: the pause the last call asked for (ends early on a stop)."""
        with self._lock:
            pause = self.pause
        if pause > 0:
            started = time.monotonic()
            try:
                stopping.pause(pause)
            finally:
                with self._lock:
                    self.paused += time.monotonic() - started
        else:
            stopping.check()

    def observe(self, seconds: float) -> None:
        """After a list call that took ``seconds``: the next pause."""
        with self._lock:
            self.calls += 1
            self.recent.append(seconds)
            if self.max_stretch <= 1:
                self.pause = 0.0
            elif seconds > self.target:
                share = seconds * (seconds / self.target - 1)  # at most target/seconds of Hermes
                self.pause = max(self.min_pause, self.pause * 2, share)
            else:
                self.pause = self.pause - self.min_pause
                if self.pause < self.min_pause:
                    self.pause = 0.0
            self.pause = min(self.pause, (self.max_stretch - 1) * seconds)
            self.pauses.append(self.pause)

    def p95(self) -> float | None:
        with self._lock:
            samples = sorted(self.recent)
        if not samples:
            return None
        return samples[min(len(samples) - 1, math.ceil(0.95 * len(samples)) - 1)]

    def as_dict(self) -> dict:
        p95 = self.p95()
        return {
            "pause_s": round(self.pause, 3),
            "p95_ms": None if p95 is None else round(p95 * 1000, 1),
            "calls": self.calls,
            "last_ms": round(self.recent[-1] * 1000, 1) if self.recent else None,
            "paused_s": round(self.paused, 1),
        }


class PacedClient:
    """A Hermes client whose list calls wait for, and report to, a ``Pacer``."""

    def __init__(self, client, pacer: Pacer):
        self._client, self.pacer = client, pacer

    def list_sessions(self, **query) -> dict:
        self.pacer.wait()
        started = time.perf_counter()
        try:
            return self._client.list_sessions(**query)
        finally:
            self.pacer.observe(time.perf_counter() - started)

    def __getattr__(self, name):
        return getattr(self._client, name)


def pace_text(pace: dict | None, *, running: bool) -> str:
    """ "sweeping at 1 call per 3 s, Hermes p95 4 ms" (or how the last sync went)."""
    if not pace or not pace.get("calls"):
        return ""
    pause = pace.get("pause_s") or 0
    p95 = pace.get("p95_ms")
    if pause <= 0:
        rate = "at full speed"
    else:
        per = pause + (pace.get("last_ms") or 0) / 1000
        rate = f"at 1 call per {per:.0f} s" if per >= 2 else f"at 1 call per {per:.1f} s"
    lead = "sweeping" if running else "last sync ran"
    text = f"{lead} {rate}"
    if p95 is not None:
        shown = f"{p95:.0f}" if p95 >= 10 else f"{p95:.1f}"
        text += f", Hermes p95 {shown} ms a list call"
    return text
