"""Turns and the Redis lease that tells other workers their owner is alive.

Another worker is simulated in this process by giving the turn another
runner id: ``store.settle_if_orphaned`` then decides exactly as a second
worker would, from the lease in Redis.
"""

import asyncio
import datetime
import threading

import pytest

from devtools.peer.launcher import free_port
from hermes_ui.audit.models import AuditEvent
from hermes_ui.chat import frames, hub, relay, store, turn_streams
from hermes_ui.chat.models import Turn
from tests.chat.test_faults import SID, STREAM, Upstream, frames_of, serve
from tests.chat.turns import finished, only_turn, send
from tests.jobs import helpers as jobs
from tests.support.samples import response
from tests.support.waiting import until

CHAT = ("POST", f"/api/sessions/{SID}/chat")


@pytest.fixture
def renewals(monkeypatch):
    """Leases of one second renewed ten times a second; the list of renewals made."""
    monkeypatch.setattr(turn_streams, "LEASE_SECONDS", 1)
    monkeypatch.setattr(turn_streams, "HEARTBEAT", 0.1)
    made = []
    real_renew = turn_streams.renew
    monkeypatch.setattr(turn_streams, "renew", lambda *a: made.append(a) or real_renew(*a))
    return made


def as_other_worker(turn_id: int) -> Turn:
    """What a second worker finds: a turn older than a lease, run by someone else."""
    old = datetime.datetime.now(datetime.UTC) - datetime.timedelta(minutes=1)
    Turn.objects.filter(pk=turn_id).update(runner="another-worker", created_at=old)
    return store.settle_if_orphaned(Turn.objects.get(pk=turn_id))


def test_a_sync_turn_holds_its_lease_while_hermes_answers(
    chat_db, with_redis, renewals, hermes, login
):
    seen = {}

    def slow_chat(request):
        turn_id = only_turn().pk
        # Hermes answers after twice a lease: only renewals keep the owner alive.
        until(lambda: len(renewals) >= 20, 10, "the lease was never renewed")
        seen["other_worker_saw"] = as_other_worker(turn_id).state
        return response("060_chat")

    hermes[CHAT] = slow_chat
    support = login("support")
    answer = jobs.follow(support, send(support, SID, "hi", htmx=False))
    assert answer.status_code == 302, answer.content.decode()[:500]
    assert seen["other_worker_saw"] == "pending"  # alive, not settled as orphaned
    turn = Turn.objects.get()
    assert turn.state == "completed" and turn.answer == "Echo: hello peer"
    assert not turn_streams.owner_alive(turn.pk)  # released once recorded


def test_a_sync_turn_settled_meanwhile_shows_its_recorded_state_not_a_500(
    chat_db, with_redis, hermes, login
):
    def chat_after_a_settle(request):
        Turn.objects.filter(pk=only_turn().pk).update(
            state="uncertain", error_code="dashboard_restarted"
        )
        return response("060_chat")

    hermes[CHAT] = chat_after_a_settle
    support = login("support")
    answer = jobs.follow(support, send(support, SID, "hi", htmx=False))
    assert answer.status_code == 302
    turn = Turn.objects.get()
    assert (turn.state, turn.error_code) == ("uncertain", "dashboard_restarted")
    page = support.get(answer["Location"])
    assert page.status_code == 200 and "outcome uncertain" in page.content.decode()


@pytest.mark.parametrize("htmx", [True, False], ids=["stream", "sync"])
def test_redis_down_when_a_turn_starts_is_a_clear_error_and_frees_the_session(
    chat_db, settings, hermes, login, htmx
):
    settings.REDIS_URL = f"redis://127.0.0.1:{free_port()}/0"  # nothing listens there
    sent = []
    hermes[CHAT] = hermes[STREAM] = lambda request: sent.append(request) or response("060_chat")
    support = login("support")
    answer = send(support, SID, "hi", htmx=htmx)
    assert answer.status_code == 503
    body = answer.content.decode()
    assert 'data-code="redis_unavailable"' in body and "nothing was sent to Hermes" in body
    turn = Turn.objects.get()
    assert (turn.state, turn.error_code) == ("failed", "redis_unavailable")
    assert sent == []
    # The session is not locked: the next try is refused for the same reason, not "busy".
    again = send(support, SID, "hi again", htmx=htmx)
    assert again.status_code == 503 and Turn.objects.count() == 2
    event = AuditEvent.objects.filter(error_code="redis_unavailable").first()
    assert event is not None and event.outcome == "refused"


def test_heartbeats_are_not_starved_by_a_busy_default_executor(
    chat_db, with_redis, renewals, hermes, login
):
    upstream = serve(hermes, Upstream(frames_of("080_stream")[:2], then="stall"))
    send(login("support"), SID, "hi")
    turn_id = only_turn().pk
    until(lambda: hub.get(turn_id) is not None, 5, "the turn never went live")
    # Every thread of the relay loop's default executor busy, as with slow
    # durability checks of other turns.
    gate = threading.Event()
    loop = relay._relay_loop()
    loop.call_soon_threadsafe(lambda: [loop.run_in_executor(None, gate.wait) for _ in range(40)])
    try:
        start = len(renewals)
        until(lambda: len(renewals) >= start + 5, 5, "no lease renewal while the executor is busy")
        assert turn_streams.owner_alive(turn_id)
    finally:
        gate.set()
    relay.cancel(turn_id)
    assert finished(turn_id).state == "cancelled" and upstream.closed.is_set()


def test_watchers_get_an_end_when_the_turn_cannot_be_finished(chat_db, hermes, login, monkeypatch):
    def broken(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(store, "finish", broken)
    serve(hermes, Upstream(frames_of("080_stream")[:2], then="stall"))
    send(login("support"), SID, "hi")
    turn_id = only_turn().pk

    async def watch() -> str:
        chunks: list[str] = []

        async def read():
            async for chunk in frames.stream(turn_id, None, ""):
                chunks.append(chunk)

        reader = asyncio.create_task(read())
        while not (hub.get(turn_id) and hub.get(turn_id)._watchers):
            await asyncio.sleep(0.02)
        relay.cancel(turn_id)  # the relay then fails to record the end
        await asyncio.wait_for(reader, 10)  # a stream waiting forever fails here
        return "".join(chunks)

    text = asyncio.run(watch())
    assert text.rstrip().endswith("data:") and "event: end" in text
    assert "outcome uncertain" in text
    turn = finished(turn_id)
    assert (turn.state, turn.error_code) == ("uncertain", "dashboard_error")
