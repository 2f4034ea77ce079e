"""The review core against the real Hermes peer (the shared demo peer; these tests make
their own sessions): bulk add from the index, the review page of a real transcript,
labels on the session page, a session Hermes deleted, and the hostile demo session."""

import secrets

import pytest
from django.urls import reverse

from devtools.peer import demo_ids as ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.review.models import Item, Label
from hermes_ui.web.links import session_url
from tests.review.core_helpers import add_items, item_url, make_queue, next_url, post_labels
from tests.support.peers import index

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


@pytest.fixture
def core_client(peer_endpoint):
    client = HermesClient(peer_endpoint)
    yield client
    client.close()


def _sessions(core_client, prefix: str, count: int, chat: bool = False) -> list[str]:
    made = []
    for n in range(count):
        session_id = f"{prefix}-{n:02d}"
        core_client.create_session(
            idempotency_key=mint_key(), session_id=session_id, title=session_id
        )
        if chat:
            core_client.chat(session_id, message=f"question {n}")
        made.append(session_id)
    return made


def test_bulk_add_then_review_a_real_transcript(core_client, peer_endpoint, users, login):
    prefix = f"rvcore-{secrets.token_hex(3)}"
    made = _sessions(core_client, prefix, 3, chat=True)
    index(peer_endpoint)
    queue = make_queue(users["reviewer"], name=prefix)
    client = login("reviewer")
    url = reverse("review_bulk_add", kwargs={"endpoint": "local"})
    answer = client.post(url, {"all": "1", "q": prefix, "stage": "confirm", "queue": queue.pk})
    assert answer.status_code == 302
    assert set(Item.objects.filter(queue=queue).values_list("session_id", flat=True)) == set(made)
    opened = client.get(next_url(queue))
    item = Item.objects.get(queue=queue, reserved_by=users["reviewer"])
    page = client.get(opened["Location"]).content.decode()
    rows = core_client.get_messages(item.session_id)["data"]
    assert [r["role"] for r in rows] == ["user", "assistant"]
    for row in rows:  # every real message has its own policy field beside it
        assert f'name="m{row["id"]}-policy"' in page
    assert f"question {made.index(item.session_id)}" in page
    assistant = rows[1]["id"]
    post_labels(
        client,
        queue,
        item,
        shown=[r["id"] for r in rows],
        **{"s__resolved": "yes", "s__quality": "4", f"m{assistant}__policy": "unsafe advice"},
    )
    assert set(Label.objects.filter(session_id=item.session_id).values_list("field", "value")) == {
        ("resolved", "yes"),
        ("quality", "4"),
        ("policy", "unsafe advice"),
    }
    shown = login("support").get(session_url("local", item.session_id)).content.decode()
    assert "unsafe advice" in shown and f"message #{assistant}" in shown


def test_a_session_deleted_in_hermes_gives_a_clear_page(core_client, peer_endpoint, users, login):
    (session_id,) = _sessions(core_client, f"rvgone-{secrets.token_hex(3)}", 1)
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, [session_id])
    core_client.delete_session(session_id, idempotency_key=mint_key())
    answer = login("reviewer").get(item_url(queue, item))
    assert answer.status_code == 404
    assert "no longer has the session" in answer.content.decode()


def test_the_hostile_demo_session_is_escaped_on_the_review_page(peer_endpoint, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, [ids.XSS_TITLE_SESSION])
    page = login("reviewer").get(item_url(queue, item)).content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_the_long_demo_session_is_reviewed_a_window_at_a_time(peer_endpoint, users, login):
    queue = make_queue(users["reviewer"])
    (item,) = add_items(queue, [ids.LONG_SESSION])
    client = login("reviewer")
    page = client.get(item_url(queue, item)).content.decode()
    assert page.count('class="rv-msg rv-has-fields"') == 100  # HERMES_MESSAGES_PAGE_SIZE
    assert 'id="rv-later"' in page
    later = page.split('id="rv-later"')[0].rsplit("formaction=", 1)[1]
    go = later.split("go=")[1].split('"')[0]
    # "Save and show later messages": a draft, then the next window of the same item.
    answer = client.post(item_url(queue, item, go=go), {"action": "save", "s-quality": "2"})
    assert answer.status_code == 302 and f"at={go}" in answer["Location"]
    second = client.get(answer["Location"].split("#")[0]).content.decode()
    assert f'name="m{go}-policy"' in second and 'name="s-quality" value="2"' in second
