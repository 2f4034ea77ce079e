"""What the dashboard erases of its own copies when a deletion executes (fake provider).

The canary test against the real peer is ``test_peer_erasure``; these walk
the cases through the views: a normal deletion, a DELETE confirmed by a
check, and a session Hermes had already lost (an "erase local copies" case).
"""

import pytest
from django.utils import timezone

from hermes_ui.audit.models import AuditEvent, IdempotencyRecord
from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.compare.models import Verdict
from hermes_ui.deletion import erasers
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.index.models import ContentMessage, IndexedSession, KnownFork
from tests.deletion.helpers import check, decide, execute, new_url, page, refresh, request_deletion

pytestmark = pytest.mark.django_db

TARGET = "fx_del_parent"
DELEGATE = "fx_del_delegate1"
BRANCH = "fx_del_branch"


def plant(ep, session_id: str, *, parent: str = "", kind: str = "root") -> Turn:
    """A finished turn with two events, an index row and a fork record for one session."""
    turn = Turn.objects.create(
        **ep.scope(),
        requested_session_id=session_id,
        target_session_id=session_id,
        form_key=f"key-{session_id}",
        state="completed",
        message=f"secret of {session_id}",
        answer=f"Echo: secret of {session_id}",
    )
    for seq, name in enumerate(("run.started", "tool.started"), 1):
        data = {"arguments": f"arg of {session_id}"}
        TurnEvent.objects.create(turn=turn, seq=seq, name=name, data=data, received_at=0.0)
    now = timezone.now()
    IndexedSession.objects.create(
        **ep.scope(),
        session_id=session_id,
        title=f"title of {session_id}",
        preview=f"secret of {session_id}",
        parent_session_id=parent,
        kind=kind,
        digest="d",
        first_seen_at=now,
        last_seen_at=now,
    )
    KnownFork.objects.create(**ep.scope(), parent_id=session_id, child_id=f"fork-of-{session_id}")
    ContentMessage.objects.create(
        **ep.scope(),
        session_id=session_id,
        message_id=1,
        role="user",
        text=f"secret of {session_id}",
    )
    return turn


def held(session_id: str) -> dict:
    return {
        "turns": Turn.objects.filter(target_session_id=session_id).count(),
        "events": TurnEvent.objects.filter(turn__target_session_id=session_id).count(),
        "index": IndexedSession.objects.filter(session_id=session_id).count(),
        "forks": KnownFork.objects.filter(parent_id=session_id).count(),
        "content": ContentMessage.objects.filter(session_id=session_id).count(),
    }


NOTHING = {"turns": 0, "events": 0, "index": 0, "forks": 0, "content": 0}
ALL = {"turns": 1, "events": 2, "index": 1, "forks": 1, "content": 1}


def deletes(fake):
    return [call for call in fake.calls if call[0] == "DELETE"]


def test_execution_erases_the_session_and_its_delegates_and_keeps_the_survivor(
    login, fake_hermes, mock_endpoint, clock
):
    turns = {sid: plant(mock_endpoint, sid) for sid in (TARGET, DELEGATE, BRANCH)}
    support, admin2 = login("support"), login("admin2")
    case = request_deletion(support, TARGET)
    decide(login("admin"), case.pk)
    assert held(TARGET) == ALL  # nothing is erased before the execution
    execute(admin2, case.pk)
    case = refresh(case)
    assert case.status == Status.EXECUTED
    assert held(TARGET) == NOTHING and held(DELEGATE) == NOTHING
    assert held(BRANCH) == ALL  # it survives in Hermes, so its copies stay
    erased = case.result["erased"]
    assert set(erased) == set(erasers.kinds())  # every registered kind is counted
    assert {kind: n for kind, n in erased.items() if n} == {
        "turns": 2,
        "turn_events": 4,
        "index_rows": 2,
        "content_messages": 2,
        "forks": 2,
    }
    shown = page(admin2, case.pk)
    assert "Erased from this dashboard" in shown and "<strong>2</strong> chat turns" in shown
    assert "<strong>4</strong> chat turn events" in shown
    assert support.get(f"/e/local/turns/{turns[TARGET].pk}/").status_code == 404
    assert support.get(f"/e/local/turns/{turns[DELEGATE].pk}/").status_code == 404
    assert support.get(f"/e/local/turns/{turns[BRANCH].pk}/").status_code == 200
    # The audit trail keeps ids and codes, never the erased text.
    assert "secret of" not in str(list(AuditEvent.objects.values_list("evidence", flat=True)))


def test_verdicts_and_recorded_titles_of_a_deleted_session_are_erased(
    login, fake_hermes, mock_endpoint, clock, users
):
    plant(mock_endpoint, TARGET)
    Verdict.objects.create(
        **mock_endpoint.scope(),
        first_id=BRANCH,
        second_id=TARGET,
        preferred_id=TARGET,
        reason="secret verdict reason",
        user=users["reviewer"],
        username="reviewer",
    )
    record = IdempotencyRecord.objects.create(
        capability="session_patch",
        endpoint="local",
        key="k-erase",
        session_id=TARGET,
        outcome="success",
        result={"id": TARGET, "title": "secret recorded title"},
    )
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    execute(login("admin2"), case.pk)
    case = refresh(case)
    assert case.status == Status.EXECUTED
    assert case.result["erased"]["verdicts"] == 1 and not Verdict.objects.exists()
    assert case.result["erased"]["change_records"] == 1
    record.refresh_from_db()
    # The record stays (a repeated form still replays, never re-sends); its title is gone.
    assert record.result == {"id": TARGET}
    assert "review verdicts" in page(login("admin2"), case.pk)


def test_a_delete_confirmed_by_a_check_erases_too(login, fake_hermes, mock_endpoint, clock):
    plant(mock_endpoint, TARGET)
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.fail_delete = "lost_answer"
    execute(login("admin2"), case.pk)
    assert refresh(case).status == Status.UNCERTAIN and held(TARGET) == ALL
    assert check(login("admin"), case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED and held(TARGET) == NOTHING
    assert case.result["erased"]["turns"] == 1


def test_a_session_deleted_elsewhere_is_erased_through_the_four_eyes_request(
    login, fake_hermes, mock_endpoint, clock
):
    plant(mock_endpoint, TARGET)
    plant(mock_endpoint, DELEGATE, parent=TARGET, kind="delegate")
    fake_hermes.delete(TARGET)  # deleted by another client
    support, admin, admin2 = login("support"), login("admin"), login("admin2")
    form = support.get(new_url(TARGET))
    body = form.content.decode()
    assert form.status_code == 200 and "Hermes no longer has the session" in body
    assert "Request erasure of the local copies" in body

    case = request_deletion(support, TARGET, "Deleted in the CLI; erase the dashboard's copies")
    assert case.erase_only and case.cascade_ids == [DELEGATE]
    assert "secret of" not in str(case.snapshot)
    assert held(TARGET) == ALL  # a request erases nothing
    assert "Still gone at Hermes" in page(admin, case.pk)
    assert decide(support, case.pk).status_code == 403  # only an admin reviews
    assert decide(admin, case.pk).status_code == 302
    assert "Erase the dashboard's copies" in page(admin2, case.pk)
    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED
    assert deletes(fake_hermes) == []  # nothing was sent to Hermes
    assert held(TARGET) == NOTHING and held(DELEGATE) == NOTHING
    assert case.result["erased"]["turns"] == 2
    assert "no DELETE was sent" in page(admin2, case.pk)
    erase_events = AuditEvent.objects.filter(capability="session_erase")
    assert erase_events.count() == 1 and erase_events.get().outcome == "success"
    assert not AuditEvent.objects.filter(capability="session_delete").exists()


def test_an_erase_only_request_needs_a_second_admin(login, fake_hermes, mock_endpoint, clock):
    plant(mock_endpoint, TARGET)
    fake_hermes.delete(TARGET)
    admin = login("admin")
    case = request_deletion(admin, TARGET)
    answer = decide(admin, case.pk)
    assert answer.status_code == 403 and "four-eyes rule" in answer.content.decode()
    assert refresh(case).status == Status.PENDING and held(TARGET) == ALL


def test_an_erase_only_case_is_void_when_hermes_has_the_session_again(
    login, fake_hermes, mock_endpoint, clock
):
    plant(mock_endpoint, TARGET)
    row = fake_hermes.get(TARGET)
    fake_hermes.delete(TARGET)
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.put(row)  # the same id exists again
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 409 and "Nothing was erased" in answer.content.decode()
    assert refresh(case).status == Status.VOID and held(TARGET) == ALL


def test_nothing_to_erase_and_no_session_is_still_not_found(login, fake_hermes, clock):
    fake_hermes.delete(TARGET)
    support = login("support")
    assert support.get(new_url(TARGET)).status_code == 404
    assert support.post(new_url(TARGET), {"session": TARGET, "reason": "x"}).status_code == 404
    assert DeletionRequest.objects.count() == 0


def test_an_erased_turns_relayed_stream_is_dropped_from_redis(
    login, fake_hermes, mock_endpoint, clock, with_redis
):
    from hermes_ui.chat import turn_streams

    turn = plant(mock_endpoint, TARGET)
    turn_streams.append(turn.pk, "event", {"delta": "secret of the stream"})
    assert turn_streams.client().exists(f"hui:chat:turn:{turn.pk}:events")
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    execute(login("admin2"), case.pk)
    assert refresh(case).result["erased"]["relay_streams"] == 1
    assert not turn_streams.client().exists(f"hui:chat:turn:{turn.pk}:events")
