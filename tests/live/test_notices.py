"""Dashboard notices: what the deletion and review features emit becomes a row of ids only."""

from __future__ import annotations

import json

import pytest
from django.db import transaction
from django.utils import timezone

from hermes_ui.deletion import announce
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.live import erase, notices
from hermes_ui.live.models import LiveNotice
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import items
from tests.review.core_helpers import add_items, make_queue, post_labels

# Real commits: a notice is written once the feature's transaction commits.
pytestmark = pytest.mark.django_db(transaction=True)
HOSTILE = '<img src=x onerror="window.__pwned=1">Secret reason'


@pytest.fixture
def notice_rubric(db):
    """A rubric of the test's own (a transactional test may have flushed the shipped one)."""
    from hermes_ui.review import rubrics
    from hermes_ui.review.models import Rubric

    made, created = Rubric.objects.get_or_create(name="live-notices")
    if created:
        rubrics.save(None, made, rubrics.DEFAULT_FIELDS, created=True)
    return made


@pytest.fixture
def notice_sessions(empty_hermes):
    for n in range(1, 3):
        empty_hermes.add(f"s{n}", at=100.0 + n, title=HOSTILE, message_count=4)
    return ["s1", "s2"]


def _request(users, session_id="s1") -> DeletionRequest:
    return DeletionRequest.objects.create(
        endpoint="local",
        session_id=session_id,
        requester=users["support"],
        requester_name="support",
        reason=HOSTILE,
        status=Status.PENDING,
        created_at=timezone.now(),
    )


def _stored() -> str:
    return json.dumps(list(LiveNotice.objects.values()), default=str)


def test_a_deletion_request_becomes_a_notice_of_its_id_only(users):
    request = _request(users)
    announce.requested(request)
    (row,) = LiveNotice.objects.all()
    assert (row.topic, row.kind, row.endpoint) == ("deletions", "requested", "local")
    assert row.ids == {"request_id": request.pk}  # no session id, no reason
    assert row.users == [users["support"].pk]
    assert "Secret" not in _stored() and "s1" not in _stored()
    assert notices.frame_data(row) == {"id": row.id, "kind": "requested", "request_id": request.pk}


def test_decisions_and_executions_are_notices_too(users):
    request = _request(users)
    request.status = Status.REJECTED
    announce.decided(request, users["admin"])
    request.status = Status.EXECUTED
    request.result = {"erased": {}}
    announce.executed(request, users["admin"])
    assert list(LiveNotice.objects.order_by("id").values_list("kind", "ids")) == [
        ("rejected", {"request_id": request.pk}),
        ("executed", {"request_id": request.pk}),
    ]


def test_only_whitelisted_integer_ids_are_kept(db):
    events.emit(
        events.DELETION_REQUESTED,
        endpoint="local",
        ids={"request_id": "7; drop", "batch_id": 3, "reason": HOSTILE, "title": HOSTILE},
        counts={"sessions": 2},
    )
    events.emit(
        events.REVIEW_ITEM_COMPLETED,
        endpoint="local",
        ids={"queue_id": 1, "item_id": True, "session_id": "s1", "note": HOSTILE},
    )
    rows = list(LiveNotice.objects.order_by("id").values_list("ids", flat=True))
    assert rows == [{"batch_id": 3}, {"queue_id": 1, "session_id": "s1"}]
    assert "Secret" not in _stored()


def test_events_nobody_follows_write_nothing(db):
    events.emit(events.SESSION_TAGGED, endpoint="local", ids={"session_id": "s1"})
    events.emit(events.ENDPOINT_DOWN, endpoint="local")
    assert not LiveNotice.objects.exists()


def test_a_rolled_back_change_leaves_no_notice(users):
    with pytest.raises(RuntimeError), transaction.atomic():
        announce.requested(_request(users))
        raise RuntimeError("the change failed")
    assert not LiveNotice.objects.exists()
    with transaction.atomic():
        announce.requested(_request(users))
        assert not LiveNotice.objects.exists()  # written once the change commits
    assert LiveNotice.objects.count() == 1


def test_labelling_completing_and_skipping_notify_the_queue(
    notice_sessions, users, login, notice_rubric
):
    queue = make_queue(users["reviewer"], reviews_needed=2, rubric=notice_rubric)
    one, two = add_items(queue, notice_sessions)
    reviewer = login("reviewer")
    reviewer.get(f"/e/local/review/{queue.pk}/items/{one.pk}/")
    answer = post_labels(reviewer, queue, one, action="save", s__resolved="yes", s__note=HOSTILE)
    assert answer.status_code in (200, 302)
    answer = post_labels(reviewer, queue, one, s__resolved="yes", s__note=HOSTILE)
    assert answer.status_code == 302
    items.skip(users["reviewer"], get_endpoint("local"), two)
    admin = login("admin")
    admin.get(f"/e/local/review/{queue.pk}/items/{one.pk}/")
    assert post_labels(admin, queue, one, s__resolved="no").status_code == 302
    found = list(LiveNotice.objects.order_by("id").values_list("topic", "kind", "ids"))
    mine = {"queue_id": queue.pk, "item_id": one.pk, "session_id": "s1"}
    skipped = {"queue_id": queue.pk, "item_id": two.pk, "session_id": "s2"}
    assert found == [
        ("review", "changed", mine),  # a draft saved
        ("review", "changed", mine),  # one review of two done
        ("review", "changed", skipped),
        ("review", "item_completed", mine),
        ("review", "queue_completed", {"queue_id": queue.pk}),  # nothing open is left
    ]
    assert "Secret" not in _stored() and "onerror" not in _stored()


def test_adding_items_notifies_the_queue(notice_sessions, users, notice_rubric):
    queue = make_queue(users["reviewer"], rubric=notice_rubric)
    items.add(users["reviewer"], get_endpoint("local"), queue, notice_sessions)
    items.add(
        users["reviewer"], get_endpoint("local"), queue, notice_sessions
    )  # already in: nothing
    assert list(LiveNotice.objects.values_list("kind", "ids")) == [
        ("changed", {"queue_id": queue.pk})
    ]


def test_erasure_takes_a_deleted_sessions_id_out_of_the_notices(users, mock_endpoint):
    review = {"queue_id": 4, "item_id": 9}
    events.emit(
        events.REVIEW_ITEM_COMPLETED, endpoint="local", ids={**review, "session_id": "gone-1"}
    )
    events.emit(events.REVIEW_QUEUE_CHANGED, endpoint="local", ids={**review, "session_id": "kept"})
    events.emit(
        events.REVIEW_QUEUE_CHANGED, endpoint="elsewhere", ids={**review, "session_id": "gone-1"}
    )
    scope = mock_endpoint
    assert erase.held(scope, ["gone-1"]) == {"live_events": 1}
    assert erase.erase(scope, ["gone-1"]) == {"live_events": 1}
    assert list(LiveNotice.objects.order_by("id").values_list("endpoint", "ids")) == [
        ("local", review),
        ("local", {**review, "session_id": "kept"}),
        ("elsewhere", {**review, "session_id": "gone-1"}),  # another endpoint's session
    ]
    assert erase.held(scope, ["gone-1"]) == {"live_events": 0}
    # The deletion's own notice, written after its erasure, does not bring the id back.
    request = _request(users, session_id="gone-1")
    request.status, request.result = Status.EXECUTED, {"erased": {}}
    announce.executed(request, users["admin"])
    assert erase.held(scope, ["gone-1"]) == {"live_events": 0}
    assert "gone-1" not in json.dumps(
        list(LiveNotice.objects.filter(endpoint="local").values("ids"))
    )
