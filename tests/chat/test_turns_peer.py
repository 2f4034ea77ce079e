"""Streamed and plain chat turns against the real Hermes API server (hermes-agent 0.19.0)."""

import json

import pytest

from hermes_ui.audit.models import AuditEvent
from hermes_ui.chat import relay
from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, peer_messages
from tests.chat.turns import finished, only_turn, send
from tests.jobs import helpers as jobs
from tests.support.waiting import until

pytestmark = [pytest.mark.peer]


def answered(peer, session_id, text) -> bool:
    rows = peer_messages(peer, session_id)["data"]
    return any(r["role"] == "assistant" and text in (r.get("content") or "") for r in rows)


def user_rows(peer, session_id, text):
    rows = peer_messages(peer, session_id)["data"]
    return [r for r in rows if r["role"] == "user" and r.get("content") == text]


def test_a_streamed_turn_completes_with_usage_durability_and_an_audit_record(
    chat_db, on_peer, login
):
    session_id = new_session(on_peer)
    response = send(login("support"), session_id, "hello there")
    assert response.status_code == 200
    page = response.content.decode()
    assert 'sse-connect="/e/local/turns/' in page
    assert "is not a rollback" in page
    turn = finished(only_turn().pk)
    assert turn.state == "completed"
    assert turn.answer == "Echo: hello there"
    assert turn.total_tokens and turn.input_tokens and turn.output_tokens
    assert turn.durability["status"] == "verified"
    rows = peer_messages(on_peer, session_id)["data"]
    assert turn.durability["user_row"] == rows[0]["id"]
    assert turn.durability["assistant_row"] == rows[-1]["id"]
    names = list(TurnEvent.objects.filter(turn=turn).values_list("name", flat=True))
    assert names[0] == "run.started" and names[-1] == "done"
    assert "tool.progress" in names  # the _thinking preview is retained...
    assert turn.answer.count("Echo") == 1  # ...but never appended to the answer
    assert turn.event_count == len(names)
    event = AuditEvent.objects.get(capability="session_chat_stream")
    assert event.outcome == "success" and event.session_id == session_id
    assert "hello" not in json.dumps(event.evidence)
    assert event.evidence["turn_id"] == turn.pk and event.evidence["state"] == "completed"


def test_the_same_submission_twice_sends_one_turn(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    support = login("support")
    first = send(support, session_id, "only once [[slow:5]]", key="k" * 24)
    again = send(support, session_id, "only once [[slow:5]]", key="k" * 24)  # double click
    assert first.status_code == again.status_code == 200
    turn = finished(only_turn().pk)
    after = send(support, session_id, "only once [[slow:5]]", key="k" * 24, htmx=False)  # reload
    assert after.status_code == 302
    assert Turn.objects.count() == 1 and turn.state == "completed"
    assert len(user_rows(on_peer, session_id, "only once [[slow:5]]")) == 1


def test_one_turn_at_a_time_per_session(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    support = login("support")
    send(support, session_id, "first [[slow:10]]")
    running = only_turn()
    busy = send(login("reviewer"), session_id, "second tab")
    assert busy.status_code == 409
    page = busy.content.decode()
    assert 'data-code="turn_running"' in page and "one at a time" in page
    assert f'id="turn-{running.pk}"' in page  # the running turn is shown instead
    plain = send(support, session_id, "second tab", htmx=False)
    assert plain.status_code == 409
    assert Turn.objects.count() == 1
    assert AuditEvent.objects.filter(outcome="refused", error_code="turn_running").count() == 2
    finished(running.pk)
    assert user_rows(on_peer, session_id, "second tab") == []
    send(support, session_id, "second tab")
    assert finished(Turn.objects.latest("pk").pk).state == "completed"
    assert len(user_rows(on_peer, session_id, "second tab")) == 1


def test_cancel_closes_the_stream_and_is_not_a_rollback(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    support = login("support")
    send(support, session_id, "long one [[slow:15]]")
    turn = only_turn()
    deltas = TurnEvent.objects.filter(turn=turn, name="assistant.delta")
    until(deltas.exists, 20, "no answer arrived before the cancel")
    cancel = support.post(f"/e/local/turns/{turn.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert cancel.status_code == 204
    turn = finished(turn.pk)
    assert turn.state == "cancelled"
    assert "not a rollback" in turn.error_message
    assert 1 <= deltas.count() < 15
    page = support.get(session_url("local", session_id)).content.decode()
    assert "cancelled" in page and "not a rollback" in page
    # Hermes keeps running the agent after the stream closed: the answer
    # lands in the transcript anyway, which is why a cancel is no rollback.
    until(
        lambda: answered(on_peer, session_id, "slow15"),
        15,
        "Hermes did not finish the cancelled turn",
        interval=0.3,
    )
    # By now Hermes has sent every event it ever would, and the relay is idle:
    # had the stream still been read, the rest of the answer would be stored.
    assert relay.wait_idle(10)
    assert TurnEvent.objects.filter(turn=turn).count() == turn.event_count  # nothing more read


def test_retained_events_are_bounded_and_the_turn_shows_truncated(
    chat_db, on_peer, login, settings
):
    settings.HERMES_CHAT_MAX_EVENTS = 20
    session_id = new_session(on_peer)
    support = login("support")
    send(support, session_id, "many [[words:200]]")
    turn = finished(only_turn().pk)
    assert turn.state == "truncated"
    assert turn.event_count == 20 == TurnEvent.objects.filter(turn=turn).count()
    page = support.get(session_url("local", session_id)).content.decode()
    assert "truncated" in page and "first 20 events" in page


def test_a_model_failure_answer_is_shown_as_failed_and_only_the_user_row_is_saved(
    chat_db, on_peer, login
):
    session_id = new_session(on_peer)
    support = login("support")
    send(support, session_id, "break it [[fail]]")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("failed", "model_failed")
    assert turn.error_message.startswith("HTTP 400: ")
    assert turn.durability["status"] == "user_only"
    page = support.get(session_url("local", session_id)).content.decode()
    assert "the model call failed" in page and "Completed." not in page
    assert AuditEvent.objects.get(capability="session_chat_stream").outcome == "uncertain"


def test_an_error_event_is_shown_as_failed(chat_db, settings, erroring_peer, login):
    from tests.support.peers import endpoint_for

    endpoint_for(settings, erroring_peer)
    session_id = new_session(erroring_peer)
    support = login("support")
    send(support, session_id, "anything")
    turn = finished(only_turn().pk)
    assert (turn.state, turn.error_code) == ("failed", "hermes_error")
    assert TurnEvent.objects.filter(turn=turn, name="error").exists()
    page = support.get(session_url("local", session_id)).content.decode()
    assert "Hermes reported an error" in page


def test_tool_activity_is_recorded(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    support = login("support")
    send(support, session_id, "plan [[tool:todo]]")
    turn = finished(only_turn().pk)
    assert turn.state == "completed"
    page = support.get(session_url("local", session_id)).content.decode()
    assert 'class="tool tool-completed"' in page and "<summary>Arguments</summary>" in page
    assert "stub task" in page


def test_a_memory_scope_is_sent_to_a_peer_with_a_key(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    send(login("support"), session_id, "scoped", session_key="support:case-1")
    turn = finished(only_turn().pk)
    assert turn.state == "completed" and turn.session_key == "support:case-1"


def test_without_javascript_the_form_runs_a_plain_turn_and_shows_it(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    support = login("support")
    # The POST answers at once with the job sending the turn; it ends on the session.
    response = jobs.follow(support, send(support, session_id, "no script here", htmx=False))
    assert response.status_code == 302
    assert response["Location"] == session_url("local", session_id) + "#chat"
    turn = only_turn()
    assert (turn.mode, turn.state, turn.answer) == ("sync", "completed", "Echo: no script here")
    assert turn.durability["status"] == "verified"
    page = support.get(response["Location"]).content.decode()
    assert "Echo: no script here" in page and "not streamed" in page
    assert AuditEvent.objects.get(capability="session_chat").outcome == "success"


def test_without_javascript_a_model_failure_is_failed(chat_db, on_peer, login):
    session_id = new_session(on_peer)
    jobs.finished(jobs.job_of(send(login("support"), session_id, "nope [[fail]]", htmx=False)))
    turn = only_turn()
    assert (turn.mode, turn.state, turn.error_code) == ("sync", "failed", "model_failed")
