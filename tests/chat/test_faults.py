"""Fault injection the real peer cannot produce on demand (httpx.MockTransport streams).

Each stream is built from the events of a captured real stream, then cut,
stalled or broken; the relay must never report such a turn as a success.
"""

import asyncio
import threading
import time

import httpx

from hermes_ui.chat import relay
from hermes_ui.chat.models import TurnEvent
from tests.chat.turns import finished, only_turn, send
from tests.support.samples import raw_stream, response
from tests.support.waiting import until

SID = "peer-demo"  # the session of the captured samples (see the ``hermes`` fixture)
STREAM = ("POST", f"/api/sessions/{SID}/chat/stream")


def frames_of(name: str) -> list[bytes]:
    return [f + b"\n\n" for f in raw_stream(name).split(b"\n\n") if f.strip()]


class Upstream(httpx.AsyncByteStream):
    """An SSE body that can stall or break, and records that the relay closed it."""

    def __init__(self, chunks, *, then=None, delay=0.0):
        self.chunks, self.then, self.delay = list(chunks), then, delay
        self.closed = threading.Event()

    async def __aiter__(self):
        for chunk in self.chunks:
            if self.delay:
                await asyncio.sleep(self.delay)
            yield chunk
        if self.then == "stall":
            await asyncio.sleep(3600)
        elif self.then == "break":
            raise httpx.ReadError("connection reset by peer")

    async def aclose(self):
        self.closed.set()


def serve(hermes, upstream: Upstream) -> Upstream:
    hermes[STREAM] = httpx.Response(
        200, headers={"Content-Type": "text/event-stream"}, stream=upstream
    )
    return upstream


def test_a_connection_broken_mid_stream_is_uncertain(chat_db, hermes, login):
    serve(hermes, Upstream(frames_of("080_stream")[:4], then="break"))
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("uncertain", "transport")
    assert "may or may not have happened" in turn.error_message
    assert turn.answer == "Echo: stream "  # what was received is kept
    assert turn.durability["status"] in {"missing", "user_only", "verified"}


def test_a_stream_that_ends_without_an_answer_is_uncertain(chat_db, hermes, login):
    serve(hermes, Upstream(frames_of("080_stream")[:5]))
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("uncertain", "stream_ended_early")


def test_keepalive_comments_are_tolerated_and_not_retained(chat_db, hermes, login):
    chunks = frames_of("080_stream")
    serve(hermes, Upstream([chunks[0], b": keepalive\n\n", *chunks[1:]]))
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert turn.state == "completed" and turn.keepalives == 1
    assert TurnEvent.objects.filter(turn=turn).count() == len(chunks) == turn.event_count


def test_the_whole_stream_is_bounded_in_time_and_the_upstream_closed(
    chat_db, hermes, login, settings
):
    settings.HERMES_STREAM_TIMEOUT = 1.0
    upstream = serve(hermes, Upstream(frames_of("080_stream")[:3], then="stall"))
    started = time.monotonic()
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert time.monotonic() - started < 10
    assert (turn.state, turn.error_code) == ("uncertain", "timeout")
    assert "not a rollback" in turn.error_message
    assert upstream.closed.wait(5)


def test_cancel_closes_the_upstream_connection(chat_db, hermes, login):
    upstream = serve(hermes, Upstream(frames_of("080_stream")[:3], then="stall"))
    support = login("support")
    send(support, SID, "hi")
    turn = only_turn()
    until(lambda: only_turn().state == "streaming", 10, "the turn never streamed")
    assert not upstream.closed.is_set()
    assert support.post(f"/e/local/turns/{turn.pk}/cancel/").status_code == 302
    assert upstream.closed.wait(5)
    assert finished(turn.pk).state == "cancelled"


def test_a_5xx_before_the_stream_is_uncertain_not_rejected(chat_db, hermes, login):
    hermes[STREAM] = httpx.Response(502, text="bad gateway")
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert turn.state == "uncertain" and not turn.rejected


def test_an_answer_missing_from_the_transcript_is_said_plainly(chat_db, hermes, login):
    serve(hermes, Upstream(frames_of("080_stream")))
    support = login("support")
    send(support, SID, "stream these words please")
    turn = finished(only_turn().pk)
    # The captured transcript does not hold this turn: Hermes answered, but
    # nothing proves it was saved.
    assert turn.state == "completed" and turn.durability["status"] == "missing"
    page = support.get(f"/e/local/turns/{turn.pk}/").content.decode()
    assert "a successful answer does not prove the turn was saved" in page


def test_a_failed_transcript_read_leaves_durability_unknown(chat_db, hermes, login):
    serve(hermes, Upstream(frames_of("080_stream")))
    support = login("support")
    calls = []

    def messages(request):
        calls.append(1)
        if len(calls) == 1:
            return response("090_messages")
        raise httpx.ConnectError("down")

    hermes[("GET", f"/api/sessions/{SID}/messages")] = messages
    send(support, SID, "hi")
    turn = finished(only_turn().pk)
    assert turn.state == "completed" and turn.durability["status"] == "unknown"
    assert relay.wait_idle(5)


def test_a_relay_that_fails_itself_never_leaves_the_session_locked(
    chat_db, hermes, login, monkeypatch
):
    from hermes_ui.chat import store

    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "finish", broken)
    serve(hermes, Upstream(frames_of("080_stream")))
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("uncertain", "dashboard_error")
