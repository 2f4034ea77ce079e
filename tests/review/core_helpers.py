"""Shared arrangements of the review core's tests: queues, items and posted labels."""

from __future__ import annotations

from importlib import import_module

from django.test import Client
from django.urls import reverse

from hermes_ui.access.grants import set_role
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review.models import Item, Queue, Rubric
from tests.conftest import PASSWORD


def default_rubric() -> Rubric:
    """The rubric migration 0003 ships; put back when a transactional test's flush took it."""
    if not Rubric.objects.filter(name="Default", is_default=True).exists():
        from django.apps import apps

        import_module("hermes_ui.review.migrations.0003_default_rubric").add_default(apps, None)
    return Rubric.objects.get(name="Default", is_default=True)


def make_queue(
    owner, *, name="Q", reviews_needed=1, any_reviewer=True, assignees=(), rubric=None
) -> Queue:
    ep = get_endpoint("local")
    queue = Queue.objects.create(
        **ep.scope(),
        name=name,
        rubric=rubric or default_rubric(),
        reviews_needed=reviews_needed,
        any_reviewer=any_reviewer,
        owner=owner,
    )
    queue.assignees.set(assignees)
    return queue


def add_items(queue: Queue, session_ids, message_id=None) -> list[Item]:
    ep = get_endpoint("local")
    return [
        Item.objects.create(**ep.scope(), queue=queue, session_id=s, message_id=message_id)
        for s in session_ids
    ]


def user_client(django_user_model, name: str, role: str = "reviewer"):
    user = django_user_model.objects.create_user(name, password=PASSWORD)
    set_role(user, role)
    client = Client()
    client.force_login(user)
    return user, client


def item_url(queue, item, **query) -> str:
    url = reverse(
        "review_item", kwargs={"endpoint": "local", "queue_id": queue.pk, "item_id": item.pk}
    )
    if query:
        url += "?" + "&".join(f"{k}={v}" for k, v in query.items())
    return url


def next_url(queue) -> str:
    return reverse("review_next", kwargs={"endpoint": "local", "queue_id": queue.pk})


def post_labels(client, queue, item, action="complete", shown=(), **fields):
    """Post the review form: ``fields`` by form name (``s-resolved``, ``m2-policy``)."""
    data = {"action": action, "shown": [str(i) for i in shown]}
    data.update({name.replace("__", "-"): value for name, value in fields.items()})
    return client.post(item_url(queue, item), data)
