"""The upstream consumer: runs each streamed turn once, apart from any browser."""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.utils import timezone

from hermes_ui.chat import durability, hub, store, turn_streams
from hermes_ui.chat.audit import record_turn
from hermes_ui.chat.progress import Ending, classify_end
from hermes_ui.hermes import HermesError
from hermes_ui.platform import redis_link

log = logging.getLogger("hermes_ui.chat")

_loop: asyncio.AbstractEventLoop | None = None
_loop_lock = threading.Lock()
# One writer thread keeps each turn's database writes in order and off the loop.
_WRITER = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="chat-writer")
# Lease renewals and releases get a thread of their own: on the loop's default
# executor they would queue behind durability checks (blocking reads of Hermes
# that may take their full timeout), and a lease renewed late lapses.
_LEASES = concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="chat-lease")
BATCH_SECONDS = 0.1
_CANCELLED = (
    "Cancelled: the dashboard closed the stream to Hermes. This is not a rollback: the model "
    "may already have called tools, and Hermes may still finish and save the turn."
)
_TIMED_OUT = (
    "The turn did not finish within {seconds:g} s, so the dashboard stopped listening. "
    "This is not a rollback: Hermes may still finish the turn."
)
_TRUNCATED = (
    "The dashboard kept the first {count:,} events of this turn and stopped listening. "
    "The turn may still be running in Hermes: its outcome is unknown."
)
_EVENT_TOO_LARGE = (
    "Hermes sent an event larger than {limit:,} bytes, so the dashboard did not keep it and "
    "stopped listening. The turn may still be running in Hermes: its outcome is unknown."
)
_ANSWER_TOO_LARGE = (
    "The answer grew past {limit:,} bytes, so the dashboard kept what came before and "
    "stopped listening. The turn may still be running in Hermes: its outcome is unknown."
)
# These carry the whole answer (and run.completed its messages): bounded like an answer.
_WHOLE_ANSWER_EVENTS = {"assistant.completed", "run.completed"}


@dataclass
class Job:
    """Everything the relay needs for one turn, captured in the request thread."""

    turn_id: int
    client: Any  # HermesClient, created where test transports apply
    user: Any
    endpoint_id: str
    target_session_id: str
    form_key: str
    message: Any
    system_message: str
    session_key: str
    baseline: int | None
    max_events: int
    total_timeout: float
    max_event_bytes: int = field(default_factory=lambda: settings.HERMES_CHAT_MAX_EVENT_BYTES)
    max_answer_bytes: int = field(default_factory=lambda: settings.HERMES_CHAT_MAX_ANSWER_BYTES)

    @classmethod
    def for_turn(cls, turn, client, user, max_events: int = 0, total_timeout: float = 0.0):
        return cls(
            turn.pk,
            client,
            user,
            turn.endpoint,
            turn.target_session_id,
            turn.form_key,
            turn.message,
            turn.system_message,
            turn.session_key,
            turn.baseline_message_id,
            max_events,
            total_timeout,
        )


def _relay_loop() -> asyncio.AbstractEventLoop:
    global _loop
    with _loop_lock:
        if _loop is None or not _loop.is_running():
            loop = asyncio.new_event_loop()
            started = threading.Event()

            def run():
                asyncio.set_event_loop(loop)
                loop.call_soon(started.set)
                loop.run_forever()

            threading.Thread(target=run, name="chat-relay", daemon=True).start()
            started.wait(5)
            _loop = loop
        return _loop


def start(job: Job, view) -> concurrent.futures.Future:
    """Relay the turn; the future resolves when Hermes answers (None) or refuses (the error)."""
    store.claim(job.turn_id)  # raises turn_streams.LeaseError: the turn is not sent
    live = hub.LiveTurn(view)
    if turn_streams.enabled():
        live.sink = functools.partial(_share, live)  # type: ignore[assignment]
    hub.register(live)
    opened: concurrent.futures.Future = concurrent.futures.Future()
    asyncio.run_coroutine_threadsafe(_run(live, job, opened), _relay_loop())
    return opened


# How long sending waits for Hermes to accept the stream, so that a refusal
# (missing message, bad part, 403 memory scope) reaches the sender.
OPEN_WAIT_SECONDS = 10.0


def send(turn, client, user) -> HermesError | None:
    """Start relaying an admitted turn (the page's stream and the API's turn alike); the
    provider's refusal when it rejected it outright, None once it runs or still connects.

    Raises ``turn_streams.LeaseError`` when the turn could not be claimed (nothing sent).
    """
    job = Job.for_turn(
        turn, client, user, settings.HERMES_CHAT_MAX_EVENTS, settings.HERMES_STREAM_TIMEOUT
    )
    opened = start(job, store.view_of(turn, with_events=False))
    try:
        return opened.result(OPEN_WAIT_SECONDS)
    except TimeoutError:
        return None  # still connecting: the page follows the turn's state


def cancel(turn_id: int, user=None) -> bool:
    """Ask the relay to stop a live turn; False when it is not live in this process."""
    live = hub.get(turn_id)
    if live is None and turn_streams.enabled():
        # Another worker may own it: its heartbeat reads the request.
        turn_streams.request_cancel(turn_id, getattr(user, "pk", None))
        return True
    if live is None or live.finished.is_set():
        return False
    live.cancel_requested = True
    live.cancelled_by = user
    loop = _relay_loop()

    def _cancel():
        if live.task is not None:
            live.task.cancel()

    loop.call_soon_threadsafe(_cancel)
    return True


def wait(turn_id: int, timeout: float) -> bool:
    live = hub.get(turn_id)
    return True if live is None else live.finished.wait(timeout)


def wait_idle(timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    return all(live.finished.wait(max(0.0, deadline - time.monotonic())) for live in hub.all_live())


class _Writes:
    """Every turn's database writes, in order, on the writer thread.

    Events waiting together (of any turn) become one insert, so 20 streams
    cost a few transactions a second, not one per delta; watchers are fed
    from memory, so the batching delays nothing they see.
    """

    def __init__(self, loop: asyncio.AbstractEventLoop):
        self._loop = loop
        self._ops: deque = deque()
        self._task: asyncio.Task | None = None

    def event(self, turn_id: int, row: tuple) -> None:
        if self._ops and self._ops[-1][0] == "events":
            self._ops[-1][1].append((turn_id, row))
        else:
            self._ops.append(("events", [(turn_id, row)], None))
        self._kick()

    def call(self, fn, *args, **kwargs) -> asyncio.Future:
        """Run ``fn`` after every write queued before it; awaiting it waits for both
        and raises what ``fn`` raised."""
        done = self._loop.create_future()
        self._ops.append(("call", functools.partial(fn, *args, **kwargs), done))
        self._kick()
        return done

    def post(self, fn, *args, **kwargs) -> None:
        """Like ``call``, without waiting: a failure is only logged."""
        self._ops.append(("call", functools.partial(fn, *args, **kwargs), None))
        self._kick()

    def _kick(self) -> None:
        if self._task is None or self._task.done():
            self._task = self._loop.create_task(self._drain())

    async def _drain(self) -> None:
        while self._ops:
            if self._ops[0][0] == "events" and len(self._ops) == 1:
                await asyncio.sleep(BATCH_SECONDS)  # let a burst gather
            kind, payload, done = self._ops.popleft()
            fn = functools.partial(store.save_events, payload) if kind == "events" else payload
            try:
                result = await self._loop.run_in_executor(_WRITER, fn)
            except Exception as exc:
                name = getattr(getattr(fn, "func", fn), "__name__", "?")
                log.exception("chat write failed op=%s", name)
                if done is not None:
                    done.set_exception(exc)
            else:
                if done is not None:
                    done.set_result(result)


_writes: _Writes | None = None


def _writer(loop: asyncio.AbstractEventLoop) -> _Writes:
    global _writes
    if _writes is None or _writes._loop is not loop:
        _writes = _Writes(loop)
    return _writes


@dataclass
class _Outcome:
    ending: Ending
    rejected: bool = False  # Hermes refused before anything ran
    status: int | None = None
    error: HermesError | None = None


async def _run(live: hub.LiveTurn, job: Job, opened: concurrent.futures.Future) -> None:
    loop = asyncio.get_running_loop()
    writes = _writer(loop)
    inner = loop.create_task(_consume(live, job, opened, writes))
    live.task = inner
    if live.cancel_requested:  # cancelled before this task ran
        inner.cancel()
    beat = loop.create_task(_heartbeat(live, job, writes)) if live.sink is not None else None
    try:
        done, _ = await asyncio.wait({inner}, timeout=job.total_timeout)
        if not done:
            inner.cancel()
        outcome = await _outcome(inner, live, job, timed_out=not done)
        await _finish(live, job, writes, outcome, opened)
    except Exception:
        # Never leave a turn "running": it would hold the session's lock.
        log.exception("chat relay could not finish turn=%s", job.turn_id)
        await writes.call(store.abandon, job.turn_id)
        # Watchers wait for "end": without it their streams would never close.
        live.publish(
            "end", state="uncertain", error_code="dashboard_error", error_message=store.ABANDONED
        )
    finally:
        if beat is not None:
            beat.cancel()
            await loop.run_in_executor(_LEASES, _quietly, turn_streams.release, job.turn_id)
        if not opened.done():
            opened.set_result(None)
        live.close()
        hub.unregister(job.turn_id)


async def _heartbeat(live: hub.LiveTurn, job: Job, writes: _Writes) -> None:
    """Keep this process's lease on the turn, and obey a cancel asked on another worker."""
    loop = asyncio.get_running_loop()
    while True:
        await asyncio.sleep(turn_streams.HEARTBEAT)
        asked = await loop.run_in_executor(
            _LEASES, _quietly, turn_streams.renew, job.turn_id, store.BOOT_ID
        )
        if asked and not live.cancel_requested:
            user_id = await loop.run_in_executor(
                _LEASES, _quietly, turn_streams.cancelled_by, job.turn_id
            )
            live.cancelled_by = await writes.call(_user, user_id)
            live.cancel_requested = True
            if live.task is not None:
                live.task.cancel()


def _share(live: hub.LiveTurn, kind: str, payload) -> None:
    """Append to the turn's Redis stream, until an append fails: a stream with a gap would
    show watchers on other workers a wrong answer. They wait for the turn to end instead
    (its owner's lease) and show the result stored in the database."""
    try:
        turn_streams.append(live.turn_id, kind, payload)
    except Exception as exc:
        _unreachable(exc, "append")
        live.sink = None
    else:
        redis_link.answered()


def _quietly(fn, *args):
    """A Redis hiccup must not break the turn this process is relaying."""
    try:
        result = fn(*args)
    except Exception as exc:
        _unreachable(exc, fn.__name__)
        return None
    redis_link.answered()
    return result


def _unreachable(exc: Exception, op: str) -> None:
    """Redis down is logged once per outage (``redis_link``), not once per event."""
    import redis

    if isinstance(exc, redis.RedisError):
        redis_link.failed(exc, f"chat relay {op}")
    else:
        log.exception("chat relay could not reach Redis op=%s", op)


def _user(user_id: int | None):
    from django.contrib.auth import get_user_model

    return get_user_model().objects.filter(pk=user_id).first() if user_id else None


async def _consume(live, job: Job, opened, writes: _Writes) -> str:
    stream = job.client.chat_stream(
        job.target_session_id,
        message=job.message,
        system_message=job.system_message or None,
        session_key=job.session_key or None,
    )
    seq = answer_bytes = 0
    try:
        async for event in stream:
            if not opened.done():
                opened.set_result(None)
                writes.post(store.set_state, job.turn_id, "streaming", started_at=_now())
                live.publish("status", state="streaming")
            if event.is_keepalive:
                live.keepalive()
                continue
            whole = event.name in _WHOLE_ANSWER_EVENTS
            limit = job.max_answer_bytes if whole else job.max_event_bytes
            if len(event.raw_data.encode("utf-8")) > limit:
                return "answer_too_large" if whole else "event_too_large"
            if event.name == "assistant.delta":
                answer_bytes += len(str(event.data.get("delta") or "").encode("utf-8"))
                if answer_bytes > job.max_answer_bytes:
                    return "answer_too_large"
            seq += 1
            row = (seq, event.name, event.data, time.time())
            live.fold(*row)
            writes.event(job.turn_id, row)
            if seq >= job.max_events and event.name != "done":
                return "truncated"
        return "eof"
    finally:
        await stream.aclose()  # closes the upstream connection


async def _outcome(inner: asyncio.Task, live, job: Job, *, timed_out: bool) -> _Outcome:
    """How the consumer stopped, as a terminal state."""
    try:
        how = await inner
    except asyncio.CancelledError:
        if timed_out:
            return _Outcome(
                Ending("uncertain", "timeout", _TIMED_OUT.format(seconds=job.total_timeout))
            )
        return _Outcome(Ending("cancelled", "cancelled", _CANCELLED))
    except HermesError as error:
        if error.uncertain or live.view.state != "pending":
            return _Outcome(Ending("uncertain", error.code, error.message), status=error.status)
        text = error.provider_message or error.message
        return _Outcome(Ending("failed", error.code, text), True, error.status, error)
    except Exception:
        log.exception("chat relay failed turn=%s", job.turn_id)
        return _Outcome(Ending("uncertain", "dashboard_error", store.ABANDONED))
    if how == "truncated":
        return _Outcome(Ending("truncated", "truncated", _TRUNCATED.format(count=job.max_events)))
    if how == "event_too_large":
        text = _EVENT_TOO_LARGE.format(limit=job.max_event_bytes)
        return _Outcome(Ending("truncated", how, text))
    if how == "answer_too_large":
        text = _ANSWER_TOO_LARGE.format(limit=job.max_answer_bytes)
        return _Outcome(Ending("truncated", how, text))
    return _Outcome(classify_end(live.view))


async def _finish(live, job: Job, writes: _Writes, outcome: _Outcome, opened) -> None:
    loop = asyncio.get_running_loop()
    view, ending = live.view, outcome.ending
    await writes.call(store.finish, job.turn_id, ending, view.copy(), rejected=outcome.rejected)
    if outcome.rejected:
        # Stored as finished first, so the form the user gets back can send again.
        opened.set_result(outcome.error)
        result = {"status": "skipped"}
    else:
        live.publish(
            "snapshot",
            state=ending.state,
            error_code=ending.code,
            error_message=ending.message,
            durability={"status": "checking"},
        )
        answer = None if view.model_failed else view.final_answer
        result = await loop.run_in_executor(
            None,
            lambda: durability.check(
                job.client,
                view.next_session_id,
                message=job.message,
                answer=answer,
                after=job.baseline,
            ),
        )
    writes.post(store.save_durability, job.turn_id, result)
    await writes.call(
        record_turn,
        job,
        outcome.ending,
        view.copy(),
        outcome.rejected,
        outcome.status,
        live.cancelled_by,
    )
    live.publish(
        "end",
        state=ending.state,
        error_code=ending.code,
        error_message=ending.message,
        rejected=outcome.rejected,
        durability=result,
    )


def _now():
    return timezone.now()
