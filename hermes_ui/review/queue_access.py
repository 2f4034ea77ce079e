"""Finding a queue from the URL, and who may change its rules."""

from django.shortcuts import get_object_or_404

from hermes_ui.review.models import Queue
from hermes_ui.web.roles import ADMIN, has_role


def queue_of(ep, pk: int) -> Queue:
    """The queue ``pk`` of endpoint identity ``ep``, or 404."""
    return get_object_or_404(
        Queue.objects.select_related("rubric", "owner"),
        pk=pk,
        endpoint=ep.id,
        endpoint_fp__in=[ep.fingerprint, ""],
    )


def may_manage(user, queue: Queue) -> bool:
    """Reviewers manage their own queues; admins of the queue's endpoint every queue there."""
    if has_role(user, ADMIN, queue.endpoint):
        return True
    return queue.owner_id is not None and queue.owner_id == user.pk
