"""One click files a deletion request for what an incomplete deletion left behind.

The leftovers become the members of a bulk request (``batch``), approved by
another admin like any other: nothing is deleted without the four-eyes
review. A leftover is a member of its own even when it is a delegate of
another leftover, since this endpoint was seen not to cascade.
"""

from __future__ import annotations

from django.db import transaction

from hermes_ui.deletion import batch, events, policy
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest


def reason_for(request: DeletionRequest) -> str:
    return (
        f"Follow-up of deletion request #{request.pk}: Hermes kept "
        f"{len(request.leftover_ids)} session(s) that deletion should have removed "
        "(its DELETE did not cascade to them)."
    )


def file(request: DeletionRequest, user) -> DeletionBatch:
    """The follow-up request (an existing one when already filed). Raises
    ``policy.Refusal``, or ``HermesError`` when Hermes cannot be read (nothing filed)."""
    if not policy.may_view(request, user):
        events.refused(user, request, "deletion_request", "wrong_role")
        raise policy.Refusal("wrong_role", "Only an admin or the requester can do this.", 403)
    if set(request.leftover_ids) & policy.hidden_ids(user, request):
        # Requesting a deletion needs a role on each session's source, as on a session page.
        events.refused(user, request, "deletion_request", "wrong_role")
        raise policy.Refusal(
            "wrong_role",
            "Some sessions this deletion left are on sources you may not see: someone who "
            "sees them files the follow-up.",
            403,
        )
    if not request.incomplete:
        raise policy.Refusal(
            "not_incomplete", "This deletion left nothing behind: there is nothing to follow up."
        )
    if request.follow_up_batch_id:
        existing = DeletionBatch.objects.filter(pk=request.follow_up_batch_id).first()
        if existing is not None:
            return existing
    endpoint = policy.endpoint_of(request)
    made = batch.create(
        endpoint, list(request.leftover_ids), user, reason_for(request), cascades=False
    )
    with transaction.atomic():
        fresh = DeletionRequest.objects.select_for_update().get(pk=request.pk)
        fresh.result = {**fresh.result, "follow_up_batch": made.pk}
        fresh.save(update_fields=["result", "updated_at"])
    request.refresh_from_db()
    return made
