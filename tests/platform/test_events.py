"""The features send their events (``hermes_ui/platform/events.py``): which, when, with what ids.

A receiver connected for the test records them; nothing here depends on the
notifications or webhooks packages that listen in production.
"""

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from hermes_ui.endpoint_status import probes
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import queues
from hermes_ui.review.models import Queue
from tests.deletion.helpers import decide, execute, request_deletion
from tests.review.core_helpers import add_items, default_rubric, item_url, make_queue, post_labels

pytestmark = pytest.mark.django_db


@pytest.fixture
def deletion_clock(monkeypatch):
    """The deletion feature's clock held still (approvals stay valid)."""
    from tests.deletion.conftest import FakeClock

    fake = FakeClock()
    monkeypatch.setattr("hermes_ui.deletion.clock.now", fake)
    return fake


@pytest.fixture
def heard(monkeypatch):
    got: list[events.Event] = []

    monkeypatch.setitem(events.receivers(), "test-events", got.append)
    return got


def names(heard) -> list[str]:
    return [e.name for e in heard]


def test_an_unknown_event_name_is_a_programming_error():
    with pytest.raises(ValueError, match="unknown event"):
        events.emit("deletion.requestd")


def test_a_failing_receiver_never_reaches_the_action(heard, caplog, monkeypatch):
    def broken(event):
        raise RuntimeError("boom with secret words")

    monkeypatch.setitem(events.receivers(), "test-broken", broken)
    found = events.emit(events.ENDPOINT_UP, endpoint="local")
    assert found.name == events.ENDPOINT_UP and names(heard) == [events.ENDPOINT_UP]
    assert "test-broken" in caplog.text
    assert "RuntimeError" in caplog.text and "secret words" not in caplog.text


def test_the_deletion_workflow_announces_request_approval_and_execution(
    heard, login, users, fake_hermes, deletion_clock
):
    case = request_deletion(login("support"), "fx_del_parent")
    decide(login("admin"), case.pk)
    execute(login("admin2"), case.pk)
    assert names(heard) == [
        events.DELETION_REQUESTED,
        events.DELETION_APPROVED,
        events.DELETION_EXECUTED,
    ]
    requested, approved, executed = heard
    assert requested.ids == {"request_id": case.pk, "session_id": "fx_del_parent"}
    assert requested.actor == users["support"].pk and requested.counts["cascade"] == 3
    assert approved.actor == users["admin"].pk and approved.users == (users["support"].pk,)
    assert executed.counts == {"sessions": 4, "incomplete": 0}
    assert all("reason" not in e.ids and "comment" not in e.ids for e in heard)


def test_a_rejection_is_its_own_event(heard, login, fake_hermes, deletion_clock):
    case = request_deletion(login("support"), "fx_del_parent")
    decide(login("admin"), case.pk, "reject", "legal_hold", "Held for case 12")
    assert names(heard) == [events.DELETION_REQUESTED, events.DELETION_REJECTED]


def test_assigning_a_queue_announces_only_the_newly_assigned(heard, users, mock_endpoint):
    ep = get_endpoint("local")
    data = {
        "name": "q",
        "rubric": default_rubric(),
        "reviews_needed": 1,
        "any_reviewer": False,
        "assignees": [users["reviewer"]],
    }
    queue = queues.save(users["admin"], ep, Queue(), data, created=True)
    other = get_user_model().objects.create_user("reviewer2")
    queues.save(
        users["admin"], ep, queue, {**data, "assignees": [users["reviewer"], other]}, created=False
    )
    assigned = [e for e in heard if e.name == events.REVIEW_QUEUE_ASSIGNED]
    assert [e.users for e in assigned] == [(users["reviewer"].pk,), (other.pk,)]
    assert assigned[0].ids == {"queue_id": queue.pk}


def test_completing_the_last_item_announces_the_item_and_the_queue(
    heard, users, login, empty_hermes
):
    for n in (1, 2):
        empty_hermes.add(f"s{n}", at=100.0 + n, title=f"Session {n}", message_count=4)
    queue = make_queue(users["reviewer"])
    first, second = add_items(queue, ["s1", "s2"])
    client = login("reviewer")
    for item in (first, second):
        client.get(item_url(queue, item))
        assert post_labels(client, queue, item, **{"s__resolved": "yes"}).status_code == 302
    assert names(heard) == [
        events.REVIEW_ITEM_COMPLETED,
        events.REVIEW_ITEM_COMPLETED,
        events.REVIEW_QUEUE_COMPLETED,
    ]
    assert heard[0].ids == {"queue_id": queue.pk, "item_id": first.pk, "session_id": "s1"}
    assert heard[2].counts == {"items": 2}


def test_an_endpoint_going_down_and_up_is_announced_once_each(heard, mock_endpoint):
    ep = get_endpoint("local")

    def probe(reachable: bool) -> probes.Probe:
        return probes.Probe(ep, reachable=reachable, error_code="" if reachable else "transport")

    probes.store(probe(True))  # the first answer: no change to tell
    probes.store(probe(True))
    probes.store(probe(False))
    probes.store(probe(False))
    probes.store(probe(True))
    assert names(heard) == [events.ENDPOINT_DOWN, events.ENDPOINT_UP]
    assert heard[0].endpoint == "local"


def test_a_bulk_deletion_is_one_event_for_all_its_members(heard, users, fake_hermes):
    from hermes_ui.deletion import batch

    filed = batch.create(
        get_endpoint("local"), ["fx_del_parent", "fx_del_branch"], users["support"], "bulk reason"
    )
    assert names(heard) == [events.DELETION_REQUESTED]
    assert heard[0].ids == {"batch_id": filed.pk}
    assert heard[0].counts == {"sessions": filed.members.count(), "skipped": len(filed.skipped)}
    assert heard[0].counts["sessions"] == 2


def test_the_probe_round_probes_every_endpoint_and_announces_a_change(
    heard, settings, mock_endpoint, recorder
):
    from hermes_ui.background import schedule
    from hermes_ui.endpoint_status.models import EndpointProbe

    settings.TASKS = {"default": {"BACKEND": "django_tasks.backends.dummy.DummyBackend"}}
    EndpointProbe.objects.create(
        **get_endpoint("local").scope(), checked_at=timezone.now(), reachable=True
    )
    recorder.routes = {}  # every call answered 404/unroutable: nothing healthy
    assert schedule.run.call("probes") == 1
    assert names(heard) == [events.ENDPOINT_DOWN]
