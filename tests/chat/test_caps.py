"""Caps on streamed turns: running turns per person and overall, bytes per event and answer."""

import httpx
import pytest

from hermes_ui.chat import store
from hermes_ui.chat.admission import over_cap
from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.platform.endpoints import get_endpoint
from tests.chat.test_faults import Upstream, frames_of
from tests.chat.turns import finished, only_turn, send
from tests.support.samples import response

SID = "peer-demo"
STREAM = ("POST", f"/api/sessions/{SID}/chat/stream")


def _running(user, n: int, *, runner: str = store.BOOT_ID) -> None:
    """``n`` turns of ``user`` recorded as streaming (on sessions of their own)."""
    for i in range(n):
        Turn.objects.create(
            **get_endpoint("local").scope(),
            requested_session_id=f"busy-{user.pk}-{i}",
            target_session_id=f"busy-{user.pk}-{i}",
            user=user,
            form_key=f"busy-{user.pk}-{i}-{runner}",
            state="streaming",
            runner=runner,
            message="hello",
        )


@pytest.fixture
def calls(mock_hermes):
    """Every request that reached (mock) Hermes, answered from captured payloads."""
    seen = []

    def answer(name):
        def handler(request):
            seen.append(request)
            return response(name)

        return handler

    mock_hermes[("GET", f"/api/sessions/{SID}/messages")] = answer("090_messages")
    mock_hermes[("GET", f"/api/sessions/{SID}")] = answer("030_get")
    return seen


@pytest.mark.parametrize("htmx", [True, False])
def test_a_fourth_running_turn_of_one_person_is_refused_before_anything_is_sent(
    db, calls, users, login, htmx
):
    _running(users["support"], 3)
    answer = send(login("support"), SID, "one more", htmx=htmx)
    assert answer.status_code == 429
    page = answer.content.decode()
    assert "You already have 3 chat turns running" in page and "Nothing was sent" in page
    assert calls == []  # Hermes was not even read
    assert Turn.objects.count() == 3
    # Someone else is not held back by that person's turns.
    assert over_cap(users["reviewer"]) is None


def test_the_overall_cap_refuses_everyone_once_reached(db, calls, users, login, settings):
    settings.HERMES_CHAT_MAX_TURNS = 2
    _running(users["reviewer"], 1)
    _running(users["admin"], 1)
    answer = send(login("support"), SID, "hello")
    assert answer.status_code == 429
    assert "already running 2 chat turns" in answer.content.decode()
    assert calls == [] and Turn.objects.filter(user=users["support"]).count() == 0


def test_the_per_person_cap_is_configurable(db, mock_hermes, users, settings):
    settings.HERMES_CHAT_MAX_TURNS_PER_USER = 1
    _running(users["support"], 1)
    refusal = over_cap(users["support"])
    assert refusal is not None and refusal.refusal == "user_turn_limit"


def test_turns_a_dead_process_left_running_do_not_count(db, mock_hermes, users):
    _running(users["support"], 3, runner="gone-process")
    assert over_cap(users["support"]) is None
    assert set(Turn.objects.values_list("state", flat=True)) == {"uncertain"}


def _frame(name: str, delta: str) -> bytes:
    template = frames_of("080_stream")[3].decode()  # an assistant.delta frame
    assert template.startswith("event: assistant.delta")
    return template.replace('"delta": "stream "', f'"delta": "{delta}"').encode()


def _serve(mock_hermes, chunks) -> None:
    mock_hermes[("GET", f"/api/sessions/{SID}/messages")] = response("090_messages")
    mock_hermes[("GET", f"/api/sessions/{SID}")] = response("030_get")
    mock_hermes[STREAM] = httpx.Response(
        200, headers={"Content-Type": "text/event-stream"}, stream=Upstream(chunks)
    )


def test_an_event_over_the_byte_cap_ends_the_turn_truncated(chat_db, mock_hermes, login, settings):
    settings.HERMES_CHAT_MAX_EVENT_BYTES = 1024
    head = frames_of("080_stream")[:3]
    _serve(
        mock_hermes, [*head, _frame("assistant.delta", "x" * 2000), *frames_of("080_stream")[4:]]
    )
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("truncated", "event_too_large")
    assert "larger than 1,024 bytes" in turn.error_message
    assert not TurnEvent.objects.filter(turn=turn, data__delta__startswith="xxx").exists()
    assert "x" * 100 not in turn.answer


def test_an_answer_over_the_byte_cap_ends_the_turn_truncated(chat_db, mock_hermes, login, settings):
    settings.HERMES_CHAT_MAX_ANSWER_BYTES = 1024
    head = frames_of("080_stream")[:3]  # run.started, message.started, "Echo: "
    deltas = [_frame("assistant.delta", "y" * 300) for _ in range(6)]
    _serve(mock_hermes, [*head, *deltas, *frames_of("080_stream")[4:]])
    send(login("support"), SID, "hi")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("truncated", "answer_too_large")
    assert "grew past 1,024 bytes" in turn.error_message
    assert turn.answer == "Echo: " + "y" * 900  # what came before the cap is kept
