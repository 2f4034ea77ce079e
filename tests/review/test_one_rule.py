"""Review queues, items, notes and mentions ask the one rule (issue 48, item 5).

Two endpoints, canaries in what ``pat`` (reviewer of ``eu``'s cron sessions)
may not see: none reaches them, a hidden item answers as a missing one, and
nobody is assigned to or mentioned on a session they cannot see.
"""

from __future__ import annotations

import pytest
from django.urls import reverse

from hermes_ui.access import grants
from hermes_ui.access.rules import forget
from hermes_ui.review import items, mentions, queues
from hermes_ui.review.forms import QueueForm
from hermes_ui.review.models import Item, Mention, Note, Queue
from tests.review.access_world import CANARY, EU_CRON, EU_HIDDEN, US_HIDDEN
from tests.review.core_helpers import default_rubric

pytestmark = pytest.mark.django_db


def _queue(ep, name, owner, session_ids, **fields) -> Queue:
    queue = Queue.objects.create(**ep.scope(), name=name, rubric=default_rubric(), owner=owner)
    for field, value in fields.items():
        setattr(queue, field, value)
    queue.save()
    for session_id in session_ids:
        Item.objects.create(**ep.scope(), queue=queue, session_id=session_id)
    return queue


@pytest.fixture
def queued(review_world):
    eu_queue = _queue(review_world.eu, "EU", review_world.people["root"], [EU_CRON, EU_HIDDEN])
    us_queue = _queue(review_world.us, "US", review_world.people["root"], [US_HIDDEN])
    return review_world, eu_queue, us_queue


def _item_url(queue, item_id) -> str:
    kwargs = {"endpoint": queue.endpoint, "queue_id": queue.pk, "item_id": item_id}
    return reverse("review_item", kwargs=kwargs)


def _main(answer) -> str:
    """The page's own part (the head carries a fresh CSP nonce each time)."""
    html = answer.content.decode()
    return html[html.index("<main") :]


def _item(queue, session_id) -> Item:
    return Item.objects.get(queue=queue, session_id=session_id)


def test_queue_pages_count_and_list_only_the_items_a_person_may_see(queued):
    world, eu_queue, _ = queued
    page = world.client("pat").get(reverse("review_queues", kwargs={"endpoint": "eu"}))
    assert page.status_code == 200
    assert "0 / 1" in page.content.decode()  # one visible item, not two
    detail = world.client("pat").get(
        reverse("review_queue", kwargs={"endpoint": "eu", "queue_id": eu_queue.pk})
    )
    assert EU_CRON in detail.content.decode()
    assert CANARY not in detail.content.decode()
    everyone = world.client("eve").get(reverse("review_queues", kwargs={"endpoint": "eu"}))
    assert "0 / 2" in everyone.content.decode()  # the rule hides, it does not lose
    assert queues.counts([eu_queue.pk], world.people["pat"])[eu_queue.pk]["total"] == 1


def test_an_item_of_a_hidden_session_answers_as_a_missing_one(queued):
    world, eu_queue, us_queue = queued
    pat = world.client("pat")
    hidden = pat.get(_item_url(eu_queue, _item(eu_queue, EU_HIDDEN).pk))
    missing = pat.get(_item_url(eu_queue, 10**6))
    assert hidden.status_code == missing.status_code == 404
    assert CANARY not in hidden.content.decode()
    assert _main(hidden) == _main(missing)  # the same page: a 404 tells nothing
    # Another endpoint's queue and item: the endpoint does not exist for pat.
    assert pat.get(_item_url(us_queue, _item(us_queue, US_HIDDEN).pk)).status_code == 404
    assert pat.get(_item_url(eu_queue, _item(eu_queue, EU_CRON).pk)).status_code == 200
    # Someone who reviews the whole endpoint opens it.
    shown = world.client("eve").get(_item_url(eu_queue, _item(eu_queue, EU_HIDDEN).pk))
    assert shown.status_code == 200


def test_next_offers_only_items_the_reviewer_may_review(queued):
    world, eu_queue, _ = queued
    pat, eve = world.people["pat"], world.people["eve"]
    assert items.next_for(pat, eu_queue) == _item(eu_queue, EU_CRON).pk
    Item.objects.filter(session_id=EU_CRON).update(state=Item.COMPLETED)
    assert items.next_for(pat, eu_queue) is None  # the telegram item is never offered
    assert items.next_for(eve, eu_queue) == _item(eu_queue, EU_HIDDEN).pk


def test_reviewer_actions_need_the_role_on_that_endpoint(queued):
    world, eu_queue, us_queue = queued
    ursula = world.people["ursula"]  # a reviewer, but of us only
    assert not queues.can_work(ursula, eu_queue) and queues.can_work(ursula, us_queue)
    assert not queues.can_manage(world.people["euadmin"], us_queue)
    assert queues.can_manage(world.people["euadmin"], eu_queue)


def test_assigning_a_reviewer_who_cannot_see_the_endpoint_is_refused(queued):
    world, eu_queue, _ = queued
    offered = {name for _pk, name in QueueForm(endpoint=world.eu).fields["assignees"].choices}
    assert {"pat", "eve", "euadmin", "root"} <= offered and "ursula" not in offered
    url = reverse("review_queue", kwargs={"endpoint": "eu", "queue_id": eu_queue.pk})
    data = {
        "name": "EU",
        "rubric": default_rubric().pk,
        "reviews_needed": "1",
        "assignees": [world.people["ursula"].pk, world.people["eve"].pk],
    }
    answer = world.client("root").post(url, data)
    assert answer.status_code == 400
    assert "ursula cannot review this endpoint&#x27;s sessions" in answer.content.decode()
    assert not eu_queue.assignees.exists()
    data["assignees"] = [world.people["eve"].pk]
    assert world.client("root").post(url, data).status_code == 302
    assert list(eu_queue.assignees.values_list("username", flat=True)) == ["eve"]


def _note(client, session_id, body):
    url = reverse("review_notes", kwargs={"endpoint": "eu", "session_id": session_id})
    return client.post(url, {"body": body})


def test_a_mention_of_someone_who_cannot_see_the_session_is_refused(queued):
    world, _, _ = queued
    refused = _note(world.client("pat"), EU_CRON, "please look @ursula")
    assert refused.status_code == 400
    assert "@ursula cannot see this session" in refused.content.decode()
    # pat may see cron sessions, not the telegram one: refused there, at the source.
    refused = _note(world.client("eve"), EU_HIDDEN, "@pat and @euadmin, look")
    assert refused.status_code == 400
    assert "@pat cannot see this session" in refused.content.decode()
    assert not Note.objects.exists() and not Mention.objects.exists()
    assert _note(world.client("pat"), EU_CRON, "please look @eve").status_code == 302
    assert list(Mention.objects.values_list("user__username", flat=True)) == ["eve"]


def test_the_mentions_page_lists_only_sessions_still_visible(queued):
    world, _, _ = queued
    pat = world.people["pat"]
    for session_id in (EU_CRON, EU_HIDDEN):  # the hidden one from before pat's grant narrowed
        note = Note.objects.create(
            **world.eu.scope(), session_id=session_id, author_name="eve", body="hi @pat"
        )
        Mention.objects.create(note=note, user=pat)
    page = world.client("pat").get(reverse("mentions"))
    assert EU_CRON in page.content.decode() and CANARY not in page.content.decode()
    assert mentions.unread_count(pat) == 1
    world.client("pat").post(reverse("mentions_read"), {"all": "on"})
    assert Mention.objects.filter(read_at__isnull=True).count() == 1  # the hidden one stays
    grants.revoke("eu", user=pat)
    forget(pat)
    grants.grant("us", "support", user=pat)
    assert mentions.rows(pat) == []


def test_a_limited_person_meets_no_canary_anywhere_in_review(queued):
    world, eu_queue, us_queue = queued
    Note.objects.create(**world.eu.scope(), session_id=EU_HIDDEN, author_name="x", body=CANARY)
    pat = world.client("pat")
    urls = [
        reverse("review_queues", kwargs={"endpoint": "eu"}),
        reverse("review_queue", kwargs={"endpoint": "eu", "queue_id": eu_queue.pk}),
        reverse("review_next", kwargs={"endpoint": "eu", "queue_id": eu_queue.pk}),
        reverse("mentions"),
        reverse("review_queues", kwargs={"endpoint": "us"}),
        reverse("review_queue", kwargs={"endpoint": "us", "queue_id": us_queue.pk}),
        _item_url(eu_queue, _item(eu_queue, EU_HIDDEN).pk),
        reverse("review_notes", kwargs={"endpoint": "eu", "session_id": EU_HIDDEN}),
        reverse("review_dataset", kwargs={"endpoint": "eu", "queue": eu_queue.pk})
        + "?format=jsonl&per=session",
    ]
    for url in urls:
        answer = pat.get(url, follow=True)
        text = b"".join(answer.streaming_content) if answer.streaming else answer.content
        # A hidden session's id is echoed only where the person typed it (the door's own
        # "Session not found: <id>", as for any id); its title and notes never.
        typed = [sid for sid in (EU_HIDDEN, US_HIDDEN) if sid in url]
        for sid in typed:
            text = text.replace(sid.encode(), b"")
        assert CANARY.encode() not in text, url
