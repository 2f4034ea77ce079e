"""How fast a sync may call Hermes: list calls paced by their latency, GETs by a gap.

A list call is a whole-table query on Hermes' side and holds up its other
clients, so one runs at a time with a pause that grows when calls slow down
(AIMD). A recheck sweep's GETs are cheap lookups, spaced by a gap stretched
when Hermes slows. See docs/development/index-and-search.md.
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
        _pause(self, pause)

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
        return _p95(self)

    def as_dict(self) -> dict:
        return _figures(self, pause_digits=3)


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


# GETs, one at a time: a recheck sweep reads every indexed session by id.
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
        return cls(gap=settings.HERMES_INDEX_RECHECK_GAP_MS / 1000)

    def wait(self) -> None:
        """Before a GET: the current pause (ends early, raising, on a stop)."""
        with self._lock:
            pause = self.pause if self.calls else 0.0
        _pause(self, pause)

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
        return _p95(self)

    def as_dict(self) -> dict:
        return _figures(self, pause_digits=4)


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


def recheck_text(recheck: dict | None, *, running: bool) -> str:
    """ "rechecking 300 of 10,000 sessions, 1 GET per 12 ms, Hermes p95 4 ms"."""
    if not recheck:
        return ""
    pace = recheck.get("pace") or {}
    done, total = recheck.get("done", 0), recheck.get("total", 0)
    per = (pace.get("pause_s") or 0) * 1000 + (pace.get("last_ms") or 0)
    lead = "rechecking" if running else "last recheck read"
    text = f"{lead} {done:,} of {total:,} sessions"
    if pace.get("calls"):
        text += f", 1 GET per {per:.0f} ms"
        p95 = pace.get("p95_ms")
        if p95 is not None:
            text += f", Hermes p95 {p95:.0f} ms" if p95 >= 10 else f", Hermes p95 {p95:.1f} ms"
    return text


def _pause(pacer, pause: float) -> None:
    """Wait ``pause`` seconds (ending early, raising, on a stop) and count it."""
    if pause > 0:
        started = time.monotonic()
        try:
            stopping.pause(pause)
        finally:
            with pacer._lock:
                pacer.paused += time.monotonic() - started
    else:
        stopping.check()


def _p95(pacer) -> float | None:
    with pacer._lock:
        samples = sorted(pacer.recent)
    if not samples:
        return None
    return samples[min(len(samples) - 1, math.ceil(0.95 * len(samples)) - 1)]


def _figures(pacer, pause_digits: int) -> dict:
    """What the sync's state and report show of a pacer."""
    p95 = _p95(pacer)
    return {
        "pause_s": round(pacer.pause, pause_digits),
        "p95_ms": None if p95 is None else round(p95 * 1000, 1),
        "calls": pacer.calls,
        "last_ms": round(pacer.recent[-1] * 1000, 1) if pacer.recent else None,
        "paused_s": round(pacer.paused, 1),
    }
