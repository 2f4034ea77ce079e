"""What a hand-made request can send to the review pages: clear answers, never a 500."""

import pytest

from hermes_ui.review import items
from hermes_ui.review.models import Item, Label
from hermes_ui.web import params
from tests.review.core_helpers import add_items, item_url, make_queue, post_labels, user_client

pytestmark = pytest.mark.django_db

HUGE = "9" * 30


@pytest.fixture
def one_session(empty_hermes):
    empty_hermes.add("s1", at=101.0, title="Session 1", message_count=4)
    return ["s1"]


@pytest.mark.parametrize(
    ("text", "signed", "expected"),
    [
        ("12", False, 12),
        ("-3", True, -3),
        ("-3", False, None),
        ("²", False, None),
        ("--5", True, None),
        (HUGE, False, None),
        ("", False, None),
        (" 1", False, None),
    ],
)
def test_whole_numbers_are_ascii_digits_of_bounded_length(text, signed, expected):
    assert params.whole(text, signed=signed) == expected


def test_odd_numbers_in_review_requests_are_refused_or_ignored(one_session, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, one_session)
    client = login("reviewer")
    assert client.get(item_url(queue, item, at="²")).status_code == 200  # ignored
    assert client.get(item_url(queue, item, at="--5")).status_code == 200
    answer = post_labels(client, queue, item, action="save", shown=["²", HUGE])
    assert answer.status_code == 302 and not Label.objects.exists()
    admin = login("admin")
    url = item_url(queue, item) + "authoritative/"
    assert admin.post(url, {"review": "²"}).status_code == 404
    add = "/e/local/review-add/s1/"
    assert client.post(add, {"queue": queue.pk, "message": HUGE}).status_code == 400
    assert login("support").post("/mentions/read/", {"mention": HUGE}).status_code == 400


def test_a_label_for_a_message_the_session_lacks_is_not_stored(one_session, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, one_session)
    client = login("reviewer")
    post_labels(
        client,
        queue,
        item,
        action="save",
        shown=[2, 424242],
        **{"m2__policy": "none", "m424242__policy": "other"},
    )
    assert list(Label.objects.values_list("message_id", "value")) == [(2, "none")]


def test_nobody_skips_an_item_another_reviewer_holds(one_session, users, login, django_user_model):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, one_session)
    other, _ = user_client(django_user_model, "reviewer2")
    assert items.reserve(other, item.pk)
    answer = post_labels(login("reviewer"), queue, item, action="skip")
    assert answer.status_code == 409 and "reviewer2" in answer.content.decode()
    item.refresh_from_db()
    assert item.state == Item.NEEDS_REVIEW and item.reserved_by == other
