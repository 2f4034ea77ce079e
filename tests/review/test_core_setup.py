"""Rubrics (default, editor, versions), queues (create, edit, progress) and adding items."""

import pytest
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent
from hermes_ui.review import rubrics
from hermes_ui.review.models import Item, Queue, Review, Rubric, RubricVersion
from hermes_ui.web.links import session_url
from tests.review.core_helpers import (
    add_items,
    default_rubric,
    item_url,
    make_queue,
    post_labels,
    user_client,
)

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def local(mock_endpoint):
    """The ``local`` endpoint every test here works on."""
    return mock_endpoint


def _fields(*rows: dict) -> dict:
    data = {"f-TOTAL_FORMS": str(len(rows)), "f-INITIAL_FORMS": "0"}
    for n, row in enumerate(rows):
        data.update({f"f-{n}-{k}": v for k, v in row.items()})
    return data


GOOD = {"key": "tone", "label": "Tone", "type": "choice", "applies": "message", "choices": "a\nb"}


def test_the_default_rubric_ships_as_version_one():
    version = default_rubric().versions.get()
    assert version.number == 1
    assert [(f["key"], f["type"], f["applies"]) for f in version.fields] == [
        ("resolved", "bool", "session"),
        ("quality", "number", "session"),
        ("policy", "choice", "message"),
        ("note", "text", "session"),
    ]
    assert version.fields[1]["min"] == 1 and version.fields[1]["max"] == 5
    assert rubrics.problems(version.fields) == []


def test_an_admin_creates_a_rubric_and_others_may_not(login):
    data = {
        "name": "Tone check",
        **_fields(GOOD, {"key": "ok", "type": "bool", "applies": "session"}),
    }
    for role in ("support", "reviewer"):
        assert login(role).post(reverse("review_rubric_new"), data).status_code == 403
        assert login(role).get(reverse("review_rubrics")).status_code == 403
    answer = login("admin").post(reverse("review_rubric_new"), data)
    assert answer.status_code == 302
    version = Rubric.objects.get(name="Tone check").versions.get()
    assert version.fields == [
        {
            "key": "tone",
            "label": "Tone",
            "type": "choice",
            "applies": "message",
            "choices": ["a", "b"],
        },
        {"key": "ok", "label": "ok", "type": "bool", "applies": "session"},
    ]
    assert AuditEvent.objects.filter(capability="review.rubric_create").count() == 1
    listing = login("admin").get(reverse("review_rubrics")).content.decode()
    assert "Tone check" in listing


@pytest.mark.parametrize(
    "rows, message",
    [
        ([GOOD, GOOD], "used by more than one field"),
        ([{**GOOD, "choices": "\n".join("abcdefghij")}], "2 to 9 options"),
        ([{**GOOD, "choices": "only"}], "2 to 9 options"),
        ([{**GOOD, "type": "number", "min": "5", "max": "1"}], "minimum must be below"),
        ([{**GOOD, "type": "number", "min": "1"}], "needs a minimum and a maximum"),
        ([{**GOOD, "key": "Bad Key"}], "Start with a lowercase letter"),
        ([], "at least one field"),
    ],
)
def test_bad_rubrics_are_refused_with_a_reason(login, rows, message):
    answer = login("admin").post(reverse("review_rubric_new"), {"name": "X", **_fields(*rows)})
    assert answer.status_code == 400
    assert message in answer.content.decode()
    assert not Rubric.objects.filter(name="X").exists()


def test_editing_adds_a_version_and_labels_keep_theirs(empty_hermes, users, login):
    empty_hermes.add("s1", message_count=2)
    rubric = default_rubric()
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, ["s1"])
    client = login("reviewer")
    client.get(item_url(queue, item))
    post_labels(client, queue, item, action="save", **{"s__quality": "3"})
    edit = reverse("review_rubric", kwargs={"rubric_id": rubric.pk})
    page = login("admin").get(edit).content.decode()
    assert 'value="quality"' in page and "personal data" in page
    data = {
        "name": "Default",
        **_fields({**GOOD, "key": "quality", "type": "number", "min": "0", "max": "9"}),
    }
    assert login("admin").post(edit, data).status_code == 302
    assert list(rubric.versions.values_list("number", flat=True)) == [2, 1]
    # The reviewer's started review stays on version 1; a new one gets version 2.
    review = Review.objects.get()
    assert review.version.number == 1
    assert 'name="s-resolved"' in client.get(item_url(queue, item)).content.decode()
    (other,) = add_items(queue, ["s2"])
    empty_hermes.add("s2", message_count=2)
    fresh = client.get(item_url(queue, other)).content.decode()
    assert 'name="s-resolved"' not in fresh and 'max="9"' in fresh
    assert AuditEvent.objects.get(capability="review.rubric_edit").evidence["version"] == 2


def test_a_reviewer_creates_a_queue_and_manages_only_their_own(login, users, django_user_model):
    url = reverse("review_queues", kwargs={"endpoint": "local"})
    data = {
        "name": "Refunds",
        "rubric": default_rubric().pk,
        "reviews_needed": "2",
        "any_reviewer": "on",
    }
    assert login("support").post(url, data).status_code == 403
    answer = login("reviewer").post(url, data)
    queue = Queue.objects.get(name="Refunds")
    assert answer["Location"] == reverse(
        "review_queue", kwargs={"endpoint": "local", "queue_id": queue.pk}
    )
    assert (queue.owner, queue.reviews_needed, queue.endpoint) == (users["reviewer"], 2, "local")
    assert login("reviewer").post(url, data).status_code == 400  # the name is taken
    edit = answer["Location"]
    _, other = user_client(django_user_model, "reviewer2")
    assert other.get(edit).status_code == 200  # may look
    assert other.post(edit, {**data, "name": "Mine"}).status_code == 403
    assert login("admin").post(edit, {**data, "name": "Renamed"}).status_code == 302
    assert Queue.objects.get(pk=queue.pk).name == "Renamed"
    review = AuditEvent.objects.filter(capability__startswith="review.")  # not the grants
    capabilities = list(review.order_by("pk").values_list("capability", flat=True))
    assert capabilities == ["review.queue_create", "review.queue_edit"]


@pytest.mark.parametrize(
    "change, message",
    [
        ({"reviews_needed": "4"}, "Select a valid choice"),
        ({"any_reviewer": ""}, "Name at least one assignee"),
        ({"name": ""}, "This field is required"),
    ],
)
def test_bad_queues_are_form_errors(login, change, message):
    url = reverse("review_queues", kwargs={"endpoint": "local"})
    data = {"name": "Q", "rubric": default_rubric().pk, "reviews_needed": "1", "any_reviewer": "on"}
    answer = login("reviewer").post(url, {**data, **change})
    assert answer.status_code == 400 and message in answer.content.decode()
    assert not Queue.objects.exists()


def test_progress_per_queue_and_per_reviewer(empty_hermes, users, login):
    for n in range(1, 5):
        empty_hermes.add(f"s{n}", message_count=2)
    queue = make_queue(
        users["reviewer"],
        reviews_needed=2,
        any_reviewer=False,
        assignees=[users["reviewer"], users["admin"]],
    )
    a, b, c, _d = add_items(queue, ["s1", "s2", "s3", "s4"])
    reviewer, admin = login("reviewer"), login("admin")
    for client, item in ((reviewer, a), (admin, a), (reviewer, b)):
        client.get(item_url(queue, item))
        post_labels(client, queue, item, **{"s__quality": "3"})
    admin.get(item_url(queue, c))
    post_labels(admin, queue, c, action="skip")
    page = reviewer.get(f"/e/local/review/{queue.pk}/").content.decode()
    assert "1 completed" in page and "1 need others" in page
    assert "1 need review" in page and "1 skipped" in page and "4 items" in page
    row = page.split('data-reviewer="reviewer"')[1].split("</tr>")[0]
    assert 'data-col="completed">1<' in row and 'data-col="needs_others">1<' in row
    assert 'data-col="needs_review">1<' in row  # d
    row = page.split('data-reviewer="admin"')[1].split("</tr>")[0]
    assert 'data-col="completed">1<' in row and 'data-col="skipped">1<' in row
    assert 'data-col="needs_review">2<' in row  # b (waiting for a second review) and d
    listing = reviewer.get("/e/local/review/").content.decode()
    assert "Refunds" not in listing and queue.name in listing


def test_adding_from_the_session_page_and_the_message_menu_is_idempotent(
    empty_hermes, users, login
):
    empty_hermes.add("s1", message_count=4)
    queue = make_queue(users["reviewer"], name="Triage")
    client = login("reviewer")
    page = client.get(session_url("local", "s1")).content.decode()
    assert 'id="review-add-form"' in page and ">Triage</option>" in page
    assert session_url("local", "s1", "review_add", message=2) in page.replace("&amp;", "&")
    url = session_url("local", "s1", "review_add")
    for _ in range(2):
        assert client.post(url, {"queue": queue.pk}).status_code == 302
        assert client.post(url, {"queue": queue.pk, "message": "2"}).status_code == 302
    assert set(Item.objects.values_list("session_id", "message_id", "added_via")) == {
        ("s1", 2, "message"),
        ("s1", None, "page"),
    }
    form = client.get(url + "?message=2").content.decode()
    assert "message #2" in form
    assert client.post(url, {"queue": "999"}).status_code == 400
    assert login("support").post(url, {"queue": queue.pk}).status_code == 403
    events = AuditEvent.objects.filter(capability="review.item_add").order_by("pk")
    assert [e.evidence["added"] for e in events] == [1, 1, 0, 0]


def test_bulk_add_from_the_index_selection(empty_hermes, users, login):
    from hermes_ui.index import sync
    from hermes_ui.platform.endpoints import get_endpoint

    for n in range(1, 6):
        empty_hermes.add(f"bulk{n}", at=100.0 + n, title=f"Bulk {n}")
    sync.sync(get_endpoint("local"), full=True)
    queue = make_queue(users["reviewer"])
    add_items(queue, ["bulk1"])
    client = login("reviewer")
    index = client.get("/e/local/sessions/?q=bulk&table=on").content.decode()
    assert 'id="review-bulk-add"' in index
    url = reverse("review_bulk_add", kwargs={"endpoint": "local"})
    pick = client.post(url, {"all": "1", "q": "bulk"})
    assert pick.status_code == 200 and "Add 5 sessions" in pick.content.decode()
    done = client.post(url, {"all": "1", "q": "bulk", "stage": "confirm", "queue": queue.pk})
    assert done.status_code == 302
    assert Item.objects.filter(queue=queue).count() == 5
    ticked = client.post(url, {"ids": ["bulk2", "bulk9"], "stage": "confirm", "queue": queue.pk})
    assert ticked.status_code == 302 and Item.objects.filter(queue=queue).count() == 6
    assert client.post(url, {}).status_code == 400  # nothing selected
    assert (
        "review-bulk-add"
        not in login("support").get("/e/local/sessions/?q=bulk&table=on").content.decode()
    )


def test_a_version_is_kept_by_its_reviews_when_a_rubric_changes():
    rubric = default_rubric()
    first = rubrics.current(rubric)
    rubrics.save(
        None,
        rubric,
        [{"key": "x", "label": "", "type": "text", "applies": "session"}],
        created=False,
    )
    assert rubrics.current(rubric).number == 2
    assert RubricVersion.objects.get(pk=first.pk).fields == first.fields
