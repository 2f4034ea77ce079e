"""How fast a verify sweep may read sessions one by one: a gap, stretched when Hermes slows.

A verify sweep (``sync``) sends one ``GET /api/sessions/{id}`` per indexed
session, one at a time. A GET is a primary-key lookup on Hermes' side (a few
milliseconds at any size), unlike a list call (a whole-table query), so the
sweep does not hold up other clients for long; but thousands of them back to
back still take a share of Hermes' one worker. So:

- there is always a gap of at least ``HERMES_INDEX_VERIFY_GAP_MS`` (8 ms by
  default) between the end of one GET and the start of the next;
- a GET slower than ``SLOW_FACTOR`` times the *baseline* and slower than
  ``SLOW_FLOOR`` doubles the pause (up to ``MAX_PAUSE``). The baseline is the
  fastest running median of the recent GETs seen so far in this sweep: what
  an unloaded Hermes answers in, robust to one lucky or unlucky call;
- a GET within that halves the pause, back down to the gap.

The pace (current pause, the GETs' p95, how many are done) goes into the
sync's progress and last report; the endpoints page shows it ("verifying 300
of 10,000 sessions, 1 GET per 12 ms, Hermes p95 4 ms"). Pauses end at once
when the process is asked to stop (``stopping``).
"""

from __future__ import annotations

import math
import statistics
import threading
import time
from collections import deque
from dataclasses import dataclass, field

from django.conf import settings

from hermes_ui.index import stopping

WINDOW = 50  # recent GETs the p95 is taken over
MEDIAN_OF = 9  # recent GETs the running median is taken over
SLOW_FACTOR = 4.0
SLOW_FLOOR = 0.010  # seconds: a GET faster than this is never "slow"
MAX_PAUSE = 2.0  # seconds


@dataclass
class GetPacer:
    gap: float  # seconds
    pause: float = -1.0  # seconds before the next GET; starts at the gap
    calls: int = 0
    paused: float = 0.0
    baseline: float | None = None  # the fastest running median so far
    recent: deque = field(default_factory=lambda: deque(maxlen=WINDOW))
    pauses: list = field(default_factory=list)  # every pause decided, for tests and the bench
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __post_init__(self) -> None:
        if self.pause < 0:
            self.pause = self.gap

    @classmethod
    def from_settings(cls) -> GetPacer:
        return cls(gap=settings.HERMES_INDEX_VERIFY_GAP_MS / 1000)

    def wait(self) -> None:
        """Before a GET: the current pause (ends early, raising, on a stop)."""
        with self._lock:
            pause = self.pause if self.calls else 0.0
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
        """After a GET that took ``seconds``: the next pause."""
        with self._lock:
            self.calls += 1
            self.recent.append(seconds)
            last = list(self.recent)[-MEDIAN_OF:]
            median = statistics.median(last)
            if len(last) >= min(MEDIAN_OF, 3) and (self.baseline is None or median < self.baseline):
                self.baseline = median
            floor = self.baseline if self.baseline is not None else seconds
            if seconds > SLOW_FLOOR and seconds > SLOW_FACTOR * floor:
                self.pause = min(MAX_PAUSE, max(self.pause * 2, self.gap, 0.001))
            else:
                self.pause = max(self.gap, self.pause / 2)
                if self.pause < self.gap * 1.01:
                    self.pause = self.gap
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
            "pause_s": round(self.pause, 4),
            "p95_ms": None if p95 is None else round(p95 * 1000, 1),
            "calls": self.calls,
            "last_ms": round(self.recent[-1] * 1000, 1) if self.recent else None,
            "paused_s": round(self.paused, 1),
        }


class PacedGets:
    """A Hermes client whose ``get_session`` waits for, and reports to, a ``GetPacer``."""

    def __init__(self, client, pacer: GetPacer):
        self._client, self.pacer = client, pacer

    def get_session(self, session_id: str):
        self.pacer.wait()
        started = time.perf_counter()
        try:
            return self._client.get_session(session_id)
        finally:
            self.pacer.observe(time.perf_counter() - started)

    def __getattr__(self, name):
        return getattr(self._client, name)


def verify_text(verify: dict | None, *, running: bool) -> str:
    """ "verifying 300 of 10,000 sessions, 1 GET per 12 ms, Hermes p95 4 ms"."""
    if not verify:
        return ""
    pace = verify.get("pace") or {}
    done, total = verify.get("done", 0), verify.get("total", 0)
    per = (pace.get("pause_s") or 0) * 1000 + (pace.get("last_ms") or 0)
    lead = "verifying" if running else "last verify read"
    text = f"{lead} {done:,} of {total:,} sessions"
    if pace.get("calls"):
        text += f", 1 GET per {per:.0f} ms"
        p95 = pace.get("p95_ms")
        if p95 is not None:
            text += f", Hermes p95 {p95:.0f} ms" if p95 >= 10 else f", Hermes p95 {p95:.1f} ms"
    return text
