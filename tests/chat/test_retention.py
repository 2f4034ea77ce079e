"""Turn retention: old turns lose their text and event payloads, and keep their metadata."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.utils import timezone

from hermes_ui.background import schedule
from hermes_ui.chat import retention
from hermes_ui.chat.models import Turn, TurnEvent


def make_turn(session_id: str, *, days_old: float = 0, ep=None) -> Turn:
    turn = Turn.objects.create(
        **(ep.scope() if ep else {"endpoint": "local"}),
        requested_session_id=session_id,
        target_session_id=session_id,
        form_key=f"key-{session_id}",
        state="completed",
        message=f"message of {session_id}",
        system_message=f"system of {session_id}",
        answer=f"answer of {session_id}",
        error_message=f"error of {session_id}",
        error_code="some_code",
        run_id="run-1",
        input_tokens=3,
        output_tokens=4,
        total_tokens=7,
        event_count=2,
        finished_at=timezone.now(),
    )
    for seq, name in enumerate(("run.started", "tool.started"), 1):
        TurnEvent.objects.create(
            turn=turn,
            seq=seq,
            name=name,
            received_at=1.0,
            data={"arguments": f"argument of {session_id}"},
        )
    Turn.objects.filter(pk=turn.pk).update(created_at=timezone.now() - timedelta(days=days_old))
    turn.refresh_from_db()
    return turn


def text_of(turn: Turn) -> tuple:
    turn.refresh_from_db()
    return (
        turn.message,
        turn.system_message,
        turn.answer,
        turn.error_message,
        [e.data for e in turn.events.all()],
    )


@pytest.mark.django_db
def test_turns_past_the_retention_period_keep_metadata_only(settings):
    settings.HERMES_UI_TURN_RETENTION_DAYS = 30
    old, recent = make_turn("old", days_old=31), make_turn("recent", days_old=29)
    created = old.created_at
    assert retention.purge() == {"turns": 1, "events": 2}
    assert text_of(old) == ("", "", "", "", [{}, {}])
    # Metadata stays: state, counts, tokens, ids, codes, times and event names.
    assert (old.state, old.error_code, old.run_id, old.total_tokens, old.event_count) == (
        "completed",
        "some_code",
        "run-1",
        7,
        2,
    )
    assert old.created_at == created and old.finished_at is not None
    assert list(old.events.values_list("seq", "name")) == [(1, "run.started"), (2, "tool.started")]
    assert text_of(recent)[0] == "message of recent"
    assert retention.purge() == {"turns": 0, "events": 0}  # nothing left to purge


@pytest.mark.django_db
def test_the_purge_follows_an_injected_clock_and_the_setting(settings):
    settings.HERMES_UI_TURN_RETENTION_DAYS = 7
    turn = make_turn("now")
    assert retention.purge(now=timezone.now() + timedelta(days=6)) == {"turns": 0, "events": 0}
    assert text_of(turn)[0] == "message of now"
    assert retention.purge(now=timezone.now() + timedelta(days=8)) == {"turns": 1, "events": 2}
    assert text_of(turn)[:3] == ("", "", "")


@pytest.mark.django_db
def test_a_purged_turn_page_still_opens(settings, login, mock_endpoint):
    turn = make_turn("shown", days_old=40, ep=mock_endpoint)
    retention.purge()
    answer = login("support").get(f"/e/local/turns/{turn.pk}/")
    assert answer.status_code == 200 and "message of shown" not in answer.content.decode()


@pytest.mark.django_db
def test_purge_turns_command(capsys):
    turn = make_turn("cmd", days_old=45)
    call_command("purge_turns")
    assert "Purged the text of 1 turn(s) and 2 event(s) older than 30 day(s)." in (
        capsys.readouterr().out
    )
    assert text_of(turn)[2] == ""


@pytest.mark.django_db(transaction=True)
def test_the_background_round_applies_retention(settings):
    settings.HERMES_ENDPOINTS = {}
    old, recent = make_turn("old", days_old=31), make_turn("recent")
    schedule.run.call("turn-purge")  # the scheduled round, in this process
    assert text_of(old)[0] == "" and text_of(recent)[0] == "message of recent"
