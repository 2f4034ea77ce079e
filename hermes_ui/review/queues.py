"""Queues: who may manage and who may work one, creating and editing, and progress."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count
from django.http import Http404

from hermes_ui.access import rows as seen
from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.review.models import Item, Queue, Review
from hermes_ui.web.roles import ADMIN, REVIEWER, SUPPORT, has_role

STATES = [state for state, _ in Item.STATES]


def of_endpoint(ep: Endpoint):
    return Queue.objects.filter(**ep.scope(), archived=False).select_related("rubric", "owner")


def get(ep: Endpoint, queue_id: int) -> Queue:
    try:
        return of_endpoint(ep).get(pk=queue_id)
    except Queue.DoesNotExist:
        raise Http404("No such review queue on this endpoint.") from None


def can_manage(user, queue: Queue) -> bool:
    """Admins of the queue's endpoint manage every queue there; a reviewer the queues they own."""
    ep = queue.endpoint
    return has_role(user, ADMIN, ep) or (has_role(user, REVIEWER, ep) and queue.owner_id == user.pk)


def can_work(user, queue: Queue) -> bool:
    """Assignees (or any reviewer of its endpoint, when the queue says so) review its items."""
    if not has_role(user, REVIEWER, queue.endpoint):
        return False
    return queue.any_reviewer or queue.assignees.filter(pk=user.pk).exists()


def require_manage(user, queue: Queue) -> None:
    if not can_manage(user, queue):
        raise PermissionDenied("Only the queue's owner or an admin may change it.")


def require_work(user, queue: Queue) -> None:
    if not can_work(user, queue):
        raise PermissionDenied("This queue is assigned to other reviewers.")


def workable(user, queues) -> list[Queue]:
    """The queues of ``queues`` that ``user`` may add to and review (one query)."""
    queues = [q for q in queues if has_role(user, REVIEWER, q.endpoint)]
    if not queues:
        return []
    mine = set(
        Queue.assignees.through.objects.filter(user_id=user.pk).values_list("queue_id", flat=True)
    )
    return [q for q in queues if q.any_reviewer or q.pk in mine]


def items_seen(user, queue: Queue, needed: str = SUPPORT):
    """The queue's items whose sessions ``user`` may see (with ``needed``): the one rule."""
    return seen.visible(Item.objects.filter(queue=queue), user, needed)


def save(user, ep: Endpoint, queue: Queue, data: dict, *, created: bool) -> Queue:
    """Create or edit a queue from a valid form's data, audited (ids and counts only)."""
    with transaction.atomic():
        queue.name = data["name"]
        queue.rubric = data["rubric"]
        queue.reviews_needed = data["reviews_needed"]
        queue.any_reviewer = data["any_reviewer"]
        if created:
            queue.endpoint, queue.endpoint_fp = ep.id, ep.fingerprint
            queue.owner = user
        before = set() if created else set(queue.assignees.values_list("pk", flat=True))
        queue.save()
        queue.assignees.set(data["assignees"])
        added = [u.pk for u in data["assignees"] if u.pk not in before and u.pk != user.pk]
        trail.record(
            user,
            capability="review.queue_create" if created else "review.queue_edit",
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            evidence={
                "queue_id": queue.pk,
                "reviews_needed": queue.reviews_needed,
                "any_reviewer": queue.any_reviewer,
                "assignees": len(data["assignees"]),
            },
        )
    if added:
        events.emit(
            events.REVIEW_QUEUE_ASSIGNED,
            endpoint=ep.id,
            actor=user,
            users=added,
            ids={"queue_id": queue.pk},
            counts={"assigned": len(added)},
        )
    return queue


def reviewers(endpoint_id: str):
    """Who may be assigned to a queue of ``endpoint_id``: reviewers and admins there."""
    pks = [person.pk for person in seen.people() if has_role(person, REVIEWER, endpoint_id)]
    return seen.people().filter(pk__in=pks).order_by("username")


def counts(queue_ids, user=None) -> dict[int, dict[str, int]]:
    """Items per state of each queue, in one query; with ``user``, only the items of
    sessions they may see."""
    queue_ids = list(queue_ids)  # a generator was read up by the line below (all zeros)
    found = {qid: dict.fromkeys(STATES, 0) for qid in queue_ids}
    items = Item.objects.filter(queue_id__in=queue_ids)
    if user is not None:
        items = seen.visible(items, user)
    rows = items.values("queue_id", "state")
    for row in rows.annotate(n=Count("id")):
        found[row["queue_id"]][row["state"]] = row["n"]
    for table in found.values():
        table["total"] = sum(table[s] for s in STATES)
    return found


@dataclass
class Person:
    """One reviewer's part of a queue: reviews done (by the item's state now), skips, and
    how many unfinished items still wait for them."""

    name: str
    completed: int = 0  # reviewed, and the item is completed
    needs_others: int = 0  # reviewed, the item waits for other reviewers
    drafts: int = 0  # started, not completed
    skipped: int = 0
    needs_review: int = 0  # unfinished items they have not reviewed
    assigned: bool = False
    states: dict = field(default_factory=dict)


def per_person(queue: Queue, viewer=None) -> list[Person]:
    people: dict[int, Person] = {}
    for user in queue.assignees.all():
        people[user.pk] = Person(user.get_username(), assigned=True)
    reviews = Review.objects.filter(item__queue=queue)
    skips = Item.objects.filter(queue=queue, state=Item.SKIPPED, skipped_by__isnull=False)
    if viewer is not None:  # what the viewer may not see is not counted either
        reviews = seen.visible(
            reviews, viewer, endpoint="item__endpoint", session="item__session_id"
        )
        skips = seen.visible(skips, viewer)
    counted = reviews.values("reviewer_id", "reviewer_name", "done", "item__state")
    for row in counted.annotate(n=Count("id")):
        person = people.setdefault(row["reviewer_id"], Person(row["reviewer_name"]))
        if not row["done"]:
            person.drafts += row["n"]
        elif row["item__state"] == Item.COMPLETED:
            person.completed += row["n"]
        else:
            person.needs_others += row["n"]
    for skip in skips.values("skipped_by_id", "skipped_by__username").annotate(n=Count("id")):
        person = people.setdefault(skip["skipped_by_id"], Person(skip["skipped_by__username"]))
        person.skipped += skip["n"]
    unfinished = Item.objects.filter(queue=queue, state__in=[Item.NEEDS_REVIEW, Item.NEEDS_OTHERS])
    if viewer is not None:
        unfinished = seen.visible(unfinished, viewer)
    total = unfinished.count()
    done_by = dict(
        Review.objects.filter(item__in=unfinished, done=True)
        .values_list("reviewer_id")
        .annotate(n=Count("id"))
    )
    for user_id, person in people.items():
        person.needs_review = total - done_by.get(user_id, 0)
    return sorted(people.values(), key=lambda p: p.name)
