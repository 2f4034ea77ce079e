"""Reviewing with a fake Hermes: next item and reservations, labelling, states, refusals."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hermes_ui.audit.models import AuditEvent
from hermes_ui.review import items
from hermes_ui.review.models import Item, Label, Review
from hermes_ui.web.links import session_url
from tests.review.core_helpers import (
    add_items,
    item_url,
    make_queue,
    next_url,
    post_labels,
    user_client,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def sessions(empty_hermes):
    for n in range(1, 4):
        empty_hermes.add(f"s{n}", at=100.0 + n, title=f"Session {n}", message_count=4)
    return ["s1", "s2", "s3"]


def _item_id(response) -> int:
    assert response.status_code == 302, response.status_code
    return int(response["Location"].rstrip("/").split("/")[-1])


def test_next_reserves_the_first_item_and_a_second_reviewer_gets_another(
    sessions, users, login, django_user_model
):
    queue = make_queue(users["reviewer"], reviews_needed=2)
    first, second, _ = add_items(queue, sessions)
    one = login("reviewer")
    _, two = user_client(django_user_model, "reviewer2")
    assert _item_id(one.get(next_url(queue))) == first.pk
    # The first is reserved for "reviewer": the second reviewer is given the next one.
    assert _item_id(two.get(next_url(queue))) == second.pk
    first.refresh_from_db()
    assert first.reserved_by == users["reviewer"]
    assert first.reserved_until > timezone.now() + timedelta(seconds=590)
    # Asking again keeps each on their own item.
    assert _item_id(one.get(next_url(queue))) == first.pk


def test_the_reservation_is_one_conditional_update(sessions, users, django_user_model):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    other, _ = user_client(django_user_model, "reviewer2")
    assert items.reserve(users["reviewer"], item.pk)
    assert not items.reserve(other, item.pk)  # held: the UPDATE matches no row
    assert items.reserve(users["reviewer"], item.pk)  # the holder extends it
    Item.objects.filter(pk=item.pk).update(reserved_until=timezone.now() - timedelta(seconds=1))
    assert items.reserve(other, item.pk)  # expired: free again
    assert Item.objects.get(pk=item.pk).reserved_by == other


def test_complete_twice_by_two_reviewers_moves_through_the_states(
    sessions, users, login, django_user_model
):
    queue = make_queue(users["reviewer"], reviews_needed=2)
    (item,) = add_items(queue, ["s1"])
    one = login("reviewer")
    _, two = user_client(django_user_model, "reviewer2")
    one.get(item_url(queue, item))
    answer = post_labels(
        one,
        queue,
        item,
        shown=[1, 2],
        **{"s__resolved": "yes", "s__quality": "4", "m2__policy": "other"},
    )
    assert answer.status_code == 302 and answer["Location"] == next_url(queue)
    item.refresh_from_db()
    assert item.state == Item.NEEDS_OTHERS and item.reserved_by is None
    labels = {(lab.message_id, lab.field, lab.value) for lab in Label.objects.all()}
    assert labels == {(None, "resolved", "yes"), (None, "quality", "4"), (2, "policy", "other")}
    # The first reviewer is not offered it again; the second is.
    assert one.get(next_url(queue)).status_code == 200  # "nothing left"
    assert _item_id(two.get(next_url(queue))) == item.pk
    post_labels(two, queue, item, **{"s__resolved": "no"})
    item.refresh_from_db()
    assert item.state == Item.COMPLETED and item.completed_at is not None
    assert Review.objects.filter(item=item, done=True).count() == 2


def test_save_keeps_a_draft_the_reviewer_edits_until_the_item_completes(sessions, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    answer = post_labels(client, queue, item, action="save", **{"s__quality": "2"})
    assert answer.status_code == 302 and answer["Location"].startswith(item_url(queue, item))
    item.refresh_from_db()
    assert item.state == Item.NEEDS_REVIEW
    page = client.get(item_url(queue, item)).content.decode()
    assert 'name="s-quality" value="2"' in page
    post_labels(client, queue, item, action="save", **{"s__quality": "3"})
    assert list(Label.objects.values_list("value", flat=True)) == ["3"]
    post_labels(client, queue, item, **{"s__quality": "5"})
    item.refresh_from_db()
    assert item.state == Item.COMPLETED
    # Completed: a late post is refused with a clear message, nothing changes.
    late = post_labels(client, queue, item, **{"s__quality": "1"})
    assert late.status_code == 409
    assert "completed meanwhile" in late.content.decode()
    assert list(Label.objects.values_list("value", flat=True)) == ["5"]
    stale = AuditEvent.objects.get(outcome="refused")
    assert (stale.capability, stale.error_code) == ("review.complete", "stale")


def test_an_expired_reservation_taken_by_another_refuses_the_stale_form(
    sessions, users, login, django_user_model
):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    Item.objects.filter(pk=item.pk).update(reserved_until=timezone.now() - timedelta(seconds=1))
    _, other_client = user_client(django_user_model, "reviewer2")
    assert _item_id(other_client.get(next_url(queue))) == item.pk
    answer = post_labels(client, queue, item, **{"s__quality": "4"})
    assert answer.status_code == 409
    text = answer.content.decode()
    assert "reservation expired" in text and "reviewer2" in text
    assert not Label.objects.exists()
    # Meanwhile the holder's page says so to the first reviewer, read-only.
    page = client.get(item_url(queue, item)).content.decode()
    assert 'id="reserved-by-other"' in page and 'id="rv-complete"' not in page


def test_an_expired_reservation_nobody_took_is_renewed_on_save(sessions, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    Item.objects.filter(pk=item.pk).update(reserved_until=timezone.now() - timedelta(seconds=1))
    assert post_labels(client, queue, item, action="save", **{"s__quality": "4"}).status_code == 302
    item.refresh_from_db()
    assert item.reserved_by == users["reviewer"] and item.reserved_until > timezone.now()


def test_skip_sets_the_state_and_counts_for_the_reviewer(sessions, users, login):
    queue = make_queue(users["reviewer"])
    first, second, _ = add_items(queue, sessions)
    client = login("reviewer")
    client.get(item_url(queue, first))
    answer = post_labels(client, queue, first, action="skip")
    assert answer["Location"] == next_url(queue)
    first.refresh_from_db()
    assert (first.state, first.skipped_by) == (Item.SKIPPED, users["reviewer"])
    assert _item_id(client.get(next_url(queue))) == second.pk
    queue_page = client.get(f"/e/local/review/{queue.pk}/").content.decode()
    assert '<span data-state="skipped">1 skipped</span>' in queue_page


def test_bad_values_are_form_errors_never_a_500(sessions, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    answer = post_labels(client, queue, item, shown=[1], **{"s__quality": "9", "m1__policy": "<b>"})
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "less than or equal to 5" in text
    assert "Select a valid choice" in text
    assert not Label.objects.exists()
    assert client.post(item_url(queue, item), {"action": "explode"}).status_code == 400


def test_a_message_item_labels_only_its_message(sessions, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"], message_id=3)
    client = login("reviewer")
    page = client.get(item_url(queue, item)).content.decode()
    assert 'name="m3-policy"' in page and 'name="m2-policy"' not in page
    # A message id the item is not about is ignored.
    post_labels(client, queue, item, shown=[2, 3], **{"m3__policy": "none", "m2__policy": "other"})
    assert list(Label.objects.values_list("message_id", "field", "value")) == [
        (3, "policy", "none")
    ]


def test_a_vanished_session_says_so_and_can_be_skipped(empty_hermes, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["gone"])
    client = login("reviewer")
    answer = client.get(item_url(queue, item))
    assert answer.status_code == 404
    assert "no longer has the session" in answer.content.decode()
    post_labels(client, queue, item, action="skip")
    assert Item.objects.get(pk=item.pk).state == Item.SKIPPED


def test_assignment_is_enforced_on_the_server(sessions, users, login, django_user_model):
    _, outsider_client = user_client(django_user_model, "outsider")
    queue = make_queue(users["admin"], any_reviewer=False, assignees=[users["reviewer"]])
    (item,) = add_items(queue, ["s1"])
    assert outsider_client.get(next_url(queue)).status_code == 403
    assert outsider_client.get(item_url(queue, item)).status_code == 403
    assert post_labels(outsider_client, queue, item).status_code == 403
    assert login("support").get(next_url(queue)).status_code == 403
    assert login("reviewer").get(next_url(queue)).status_code == 302


def test_labels_of_completed_reviews_show_on_the_session_page_escaped(sessions, users, login):
    queue = make_queue(users["reviewer"], reviews_needed=1)
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    hostile = "<script>alert('note')</script>"
    post_labels(client, queue, item, action="save", **{"s__note": hostile})
    support = login("support")
    before = support.get(session_url("local", "s1")).content.decode()
    assert "review-label-table" not in before  # a draft is nobody's label yet
    post_labels(client, queue, item, shown=[2], **{"s__note": hostile, "m2__policy": "other"})
    page = support.get(session_url("local", "s1")).content.decode()
    assert "&lt;script&gt;alert(&#x27;note&#x27;)&lt;/script&gt;" in page
    assert hostile not in page
    assert "message #2" in page and "review-add-form" not in page  # support reads only


def test_an_admin_marks_one_review_authoritative(sessions, users, login):
    queue = make_queue(users["reviewer"], reviews_needed=2)
    (item,) = add_items(queue, ["s1"])
    for name, quality in (("reviewer", "2"), ("admin", "5")):
        client = login(name)
        client.get(item_url(queue, item))
        post_labels(client, queue, item, **{"s__quality": quality})
    reviewer_review = Review.objects.get(item=item, reviewer=users["reviewer"])
    url = item_url(queue, item) + "authoritative/"
    assert login("reviewer").post(url, {"review": reviewer_review.pk}).status_code == 403
    assert login("admin").post(url, {"review": "x"}).status_code == 404
    assert login("admin").post(url, {"review": reviewer_review.pk}).status_code == 302
    page = login("support").get(session_url("local", "s1")).content.decode()
    table = page.split('id="review-label-table"')[1].split("</table>")[0]
    assert "authoritative" in table and ">2<" in table and ">5<" not in table
    event = AuditEvent.objects.get(capability="review.authoritative")
    assert event.evidence == {"item_id": item.pk, "review_id": reviewer_review.pk}


def test_audit_keeps_ids_and_counts_never_label_values(sessions, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    post_labels(client, queue, item, action="save", **{"s__note": "secret-note-text"})
    post_labels(client, queue, item, **{"s__note": "secret-note-text", "s__quality": "3"})
    events = AuditEvent.objects.filter(capability__startswith="review.").order_by("pk")
    assert [e.capability for e in events] == ["review.label", "review.complete"]
    complete = events[1].evidence
    assert complete["count"] == 2 and complete["state"] == "completed"
    assert complete["item_id"] == item.pk and complete["version"] == 1
    assert "secret-note-text" not in str([e.evidence for e in events])


@pytest.mark.django_db(transaction=True)
def test_concurrent_opens_of_one_item_reserve_it_once(mock_endpoint, django_user_model):
    import threading

    from django.db import connection

    from hermes_ui.review import rubrics
    from hermes_ui.review.models import Rubric

    owner = django_user_model.objects.create_user("owner")
    reviewers = [django_user_model.objects.create_user(f"r{n}") for n in range(6)]
    # Its own rubric: a transactional test may run after another one flushed the shipped one.
    rubric = Rubric.objects.create(name="threads")
    rubrics.save(None, rubric, rubrics.DEFAULT_FIELDS, created=True)
    queue = make_queue(owner, rubric=rubric)
    (item,) = add_items(queue, ["s1"])
    start, won = threading.Barrier(len(reviewers)), []

    def open_it(user):
        try:
            start.wait()
            if items.reserve(user, item.pk):
                won.append(user.pk)
        finally:
            connection.close()

    threads = [threading.Thread(target=open_it, args=(u,)) for u in reviewers]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(won) == 1
    assert Item.objects.get(pk=item.pk).reserved_by_id == won[0]
