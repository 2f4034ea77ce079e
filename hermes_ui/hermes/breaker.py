"""A circuit breaker per endpoint: a Hermes that stops answering is failed fast, then retried."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings

from hermes_ui.platform import metrics, redis_link
from hermes_ui.platform.endpoints import Endpoint

REFRESH_SECONDS = 1.0


@dataclass
class State:
    failures: int = 0
    opened_at: float | None = None  # wall clock, for "since HH:MM"


class _Local:
    """Process memory: the whole truth without Redis, the fallback while it is down."""

    def __init__(self):
        self.lock = threading.Lock()
        self.states: dict[str, State] = {}
        self.trials: dict[str, float] = {}

    def read(self, key: str) -> State:
        with self.lock:
            state = self.states.get(key, State())
            return State(state.failures, state.opened_at)

    def fail(self, key: str, threshold: int, period: float) -> State:
        with self.lock:
            state = self.states.setdefault(key, State())
            state.failures += 1
            if state.failures >= threshold and state.opened_at is None:
                state.opened_at = time.time()
                # The first trial comes a period after opening, not with the next call.
                self.trials[key] = time.monotonic() + period
            return State(state.failures, state.opened_at)

    def reset(self, key: str) -> None:
        with self.lock:
            self.states.pop(key, None)
            self.trials.pop(key, None)

    def trial(self, key: str, period: float) -> bool:
        now = time.monotonic()
        with self.lock:
            if self.trials.get(key, 0.0) > now:
                return False
            self.trials[key] = now + period
            return True

    def trial_in(self, key: str) -> float:
        with self.lock:
            return max(0.0, self.trials.get(key, 0.0) - time.monotonic())


class _Shared:
    """Redis: one hash per endpoint identity, one trial key per period."""

    @staticmethod
    def _key(key: str) -> str:
        return f"hui:breaker:{key}"

    def read(self, key: str) -> State:
        raw = redis_link.client().hgetall(self._key(key))
        opened = raw.get(b"opened_at")
        return State(int(raw.get(b"failures", 0)), float(opened) if opened else None)

    def fail(self, key: str, threshold: int, period: float) -> State:
        conn, name = redis_link.client(), self._key(key)
        failures = conn.hincrby(name, "failures", 1)
        if failures >= threshold and conn.hsetnx(name, "opened_at", repr(time.time())):
            # The first trial comes a period after opening, not with the next call.
            conn.set(name + ":trial", b"1", px=int(period * 1000))
        conn.expire(name, 24 * 3600)
        return self.read(key)

    def reset(self, key: str) -> None:
        redis_link.client().delete(self._key(key), self._key(key) + ":trial")

    def trial(self, key: str, period: float) -> bool:
        name = self._key(key) + ":trial"
        return bool(redis_link.client().set(name, b"1", nx=True, px=int(period * 1000)))

    def trial_in(self, key: str) -> float:
        # -2: no trial key (the next call is one), -1: no expiry (never set so).
        return max(0.0, redis_link.client().pttl(self._key(key) + ":trial") / 1000)


_LOCAL = _Local()
_SHARED = _Shared()


class Breaker:
    """The breaker of one endpoint identity, as seen by this process."""

    def __init__(self, endpoint: Endpoint):
        self.endpoint = endpoint
        self.key = f"{endpoint.id}:{endpoint.fingerprint}"
        self._seen = State()
        self._seen_at = 0.0

    # -- where the state lives -------------------------------------------------

    def _do(self, op: str, *args):
        if redis_link.available():
            import redis

            try:
                result = getattr(_SHARED, op)(self.key, *args)
            except redis.RedisError as exc:
                redis_link.failed(exc, "breaker")
            else:
                redis_link.answered()
                return result
        return getattr(_LOCAL, op)(self.key, *args)

    def state(self) -> State:
        now = time.monotonic()
        if now - self._seen_at >= REFRESH_SECONDS:
            self._see(self._do("read"), now)
        return self._seen

    def _see(self, state: State, at: float) -> None:
        self._seen, self._seen_at = state, at
        metrics.BREAKER_OPEN.labels(self.endpoint.id).set(0 if state.opened_at is None else 1)

    # -- the call's side --------------------------------------------------------

    def admit(self) -> bool:
        """May a call go out? ``True`` for a trial of an open breaker; raises when not."""
        state = self.state()
        if state.opened_at is None:
            return False
        if self._do("trial", settings.HERMES_BREAKER_RETRY_SECONDS):
            return True
        raise Open(state.opened_at)

    def succeeded(self) -> None:
        if self._seen.failures or self._seen.opened_at is not None:
            self._do("reset")
            self._see(State(), time.monotonic())

    def failed(self) -> None:
        limits = settings.HERMES_BREAKER_FAILURES, settings.HERMES_BREAKER_RETRY_SECONDS
        self._see(self._do("fail", *limits), time.monotonic())

    # -- for pages ---------------------------------------------------------------

    def status(self) -> Status:
        """The state as it is now (not this process's copy of up to a second ago)."""
        state = self._do("read")
        if state.opened_at is None:
            return Status(state.failures)
        return Status(state.failures, state.opened_at, self._do("trial_in"))


@dataclass(frozen=True)
class Status:
    """What a page shows of a breaker: closed, or open since ``opened_at`` (wall clock)
    with the next trial call allowed in ``next_trial_in`` seconds (0: the next call)."""

    failures: int = 0
    opened_at: float | None = None
    next_trial_in: float | None = None

    @property
    def open(self) -> bool:
        return self.opened_at is not None

    @property
    def since(self) -> datetime | None:
        return None if self.opened_at is None else datetime.fromtimestamp(self.opened_at, tz=UTC)


class Open(Exception):
    def __init__(self, since: float):
        super().__init__("breaker open")
        self.since = since


_BREAKERS: dict[str, Breaker] = {}
_BREAKERS_LOCK = threading.Lock()


def breaker_for(endpoint: Endpoint) -> Breaker:
    key = f"{endpoint.id}|{endpoint.base_url}"
    with _BREAKERS_LOCK:
        found = _BREAKERS.get(key)
        if found is None:
            found = _BREAKERS[key] = Breaker(endpoint)
        return found


def status(endpoint: Endpoint) -> Status:
    """The breaker of ``endpoint``, read without calling Hermes or using up a trial."""
    return breaker_for(endpoint).status()


def reset_all() -> None:
    """Forget every breaker of this process (tests, and a changed configuration)."""
    with _BREAKERS_LOCK:
        _BREAKERS.clear()
    with _LOCAL.lock:
        _LOCAL.states.clear()
        _LOCAL.trials.clear()
    metrics.BREAKER_OPEN.clear()
