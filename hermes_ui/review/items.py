"""Queue items: adding them (each once), reserving the next one, and their states.

A reservation is taken with one conditional UPDATE (the item is unfinished and
free, expired, or already this reviewer's), so two reviewers opening the same
item at once cannot both get it: the database lets one UPDATE match.
"""

from __future__ import annotations

from datetime import timedelta

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Q
from django.http import Http404
from django.utils import timezone

from hermes_ui.access import rows as seen
from hermes_ui.access.models import REVIEWER
from hermes_ui.access.rules import access_of
from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.review.models import Item, Queue, Review

OPEN = (Item.NEEDS_REVIEW, Item.NEEDS_OTHERS)


def add(user, ep: Endpoint, queue: Queue, session_ids, *, message_id=None, via="page") -> int:
    """Add each session (or the one message) to the queue, skipping those already in it.
    Returns how many were added; the unique constraints make a repeat a no-op."""
    ids = list(dict.fromkeys(session_ids))
    mine = Item.objects.filter(queue=queue, session_id__in=ids, message_id=message_id)
    with transaction.atomic():
        before = mine.count()
        # Conflicts with the unique constraints (already in the queue) are left out.
        Item.objects.bulk_create(
            [
                Item(
                    **ep.scope(),
                    queue=queue,
                    session_id=session_id,
                    message_id=message_id,
                    added_via=via,
                    added_by=user,
                )
                for session_id in ids
            ],
            ignore_conflicts=True,
        )
        added = mine.count() - before
    trail.record(
        user,
        capability="review.item_add",
        endpoint=ep.id,
        outcome=Outcome.SUCCESS,
        session_id=ids[0] if len(ids) == 1 else "",
        evidence={
            "queue_id": queue.pk,
            "count": len(ids),
            "added": added,
            "already": len(ids) - added,
            "message_id": message_id,
            "kind": via,
        },
    )
    if added:
        events.emit(
            events.REVIEW_QUEUE_CHANGED,
            endpoint=ep.id,
            actor=user,
            ids={"queue_id": queue.pk},
            counts={"added": added},
        )
    return added


def _free_for(user, now):
    return Q(reserved_by__isnull=True) | Q(reserved_until__lt=now) | Q(reserved_by=user)


def reserve(user, item_id: int):
    """Reserve the item for ``user`` (or extend their reservation): the new end of the
    reservation, or None when someone else holds it or it is finished. Race-free: one
    conditional UPDATE, which matches only while the item is open and free."""
    now = timezone.now()
    until = now + timedelta(seconds=settings.HERMES_REVIEW_RESERVATION_SECONDS)
    taken = Item.objects.filter(_free_for(user, now), pk=item_id, state__in=OPEN).update(
        reserved_by=user, reserved_until=until
    )
    return until if taken == 1 else None


def hold(user, item: Item) -> None:
    """Opening an item reserves it, unless the user already holds it for more than half
    the reservation time (opening the next item just reserved it: no second write)."""
    now = timezone.now()
    half = timedelta(seconds=settings.HERMES_REVIEW_RESERVATION_SECONDS / 2)
    if item.reserved_by_id == user.pk and item.reserved_until and item.reserved_until > now + half:
        return
    until = reserve(user, item.pk)
    if until is not None:
        item.reserved_by, item.reserved_until = user, until


def release(user, item_id: int) -> None:
    Item.objects.filter(pk=item_id, reserved_by=user).update(reserved_by=None, reserved_until=None)


def next_for(user, queue: Queue) -> int | None:
    """The id of the first open item ``user`` may review, has not completed a review of
    and nobody else holds, now reserved for them; one they already hold comes first."""
    for _ in range(3):  # another reviewer may win each candidate: look again
        now = timezone.now()
        # Only items of sessions the reviewer may review (the one rule).
        candidates = list(
            seen.visible(Item.objects.filter(queue=queue, state__in=OPEN), user, REVIEWER)
            .filter(_free_for(user, now))
            .exclude(pk__in=Review.objects.filter(reviewer=user, done=True).values("item_id"))
            .order_by("id")
            .values_list("pk", "reserved_by_id")[:20]
        )
        if not candidates:
            return None
        mine = [pk for pk, holder in candidates if holder == user.pk]
        for item_id in mine + [pk for pk, _ in candidates if pk not in mine]:
            if reserve(user, item_id):
                return item_id
    return None


def holder(item: Item):
    """Who else holds the item now (None: free, expired, or nobody else)."""
    if item.reserved_by_id and item.reserved_until and item.reserved_until >= timezone.now():
        return item.reserved_by
    return None


def finish(item: Item, queue: Queue) -> str:
    """Set the item's state from its completed reviews; returns the state."""
    done = item.reviews.filter(done=True).count()
    if done >= queue.reviews_needed:
        state, completed_at = Item.COMPLETED, timezone.now()
    else:
        state, completed_at = (Item.NEEDS_OTHERS if done else Item.NEEDS_REVIEW), None
    Item.objects.filter(pk=item.pk).update(
        state=state, completed_at=completed_at, reserved_by=None, reserved_until=None
    )
    item.state = state
    return state


def skip(user, ep: Endpoint, item: Item) -> bool:
    """Skip an open item that ``user`` holds or nobody holds; False if someone else does
    (or it is finished): a reviewer's reservation keeps others' hands off it."""
    free = _free_for(user, timezone.now())
    changed = Item.objects.filter(free, pk=item.pk, state__in=OPEN).update(
        state=Item.SKIPPED, skipped_by=user, reserved_by=None, reserved_until=None
    )
    trail.record(
        user,
        capability="review.skip",
        endpoint=ep.id,
        outcome=Outcome.SUCCESS if changed else Outcome.REFUSED,
        session_id=item.session_id,
        evidence={"queue_id": item.queue_id, "item_id": item.pk, "state": Item.SKIPPED},
    )
    if changed:
        changed_ids = {"queue_id": item.queue_id, "item_id": item.pk, "session_id": item.session_id}
        events.emit(events.REVIEW_QUEUE_CHANGED, endpoint=ep.id, actor=user, ids=changed_ids)
    return bool(changed)


def make_authoritative(user, ep: Endpoint, review: Review) -> None:
    with transaction.atomic():
        Review.objects.filter(item_id=review.item_id).exclude(pk=review.pk).update(
            authoritative=False
        )
        Review.objects.filter(pk=review.pk).update(authoritative=True)
        trail.record(
            user,
            capability="review.authoritative",
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            session_id=review.item.session_id,
            evidence={"item_id": review.item_id, "review_id": review.pk},
        )


def visible(user, ep: Endpoint, queue: Queue, item_id: int, needed: str = REVIEWER) -> Item:
    """The queue's item; 404 for an item of a session the person may not see (as for a
    missing one), 403 when they see it but lack ``needed`` on its source."""
    try:
        item = queue.items.select_related("reserved_by").get(pk=item_id)
    except Item.DoesNotExist:
        raise Http404("No such item in this queue.") from None
    access = access_of(user)
    if not seen.may_see(access, ep.id, item.session_id):
        raise Http404("No such item in this queue.")
    if not seen.may_see(access, ep.id, item.session_id, needed):
        raise PermissionDenied(f"This needs the {needed} role.")
    return item
