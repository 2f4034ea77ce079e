"""What an executed deletion left on Hermes, checked rather than assumed.

The contract says a DELETE removes the session's delegate descendants too;
hermes-agent 0.15.2 deletes only the session and its delegates become roots.
The reads after the DELETE (``confirm_gone.after_delete``) show which ids are still
there: the case then reads "executed, incomplete", and the endpoint is
remembered as one whose DELETE does not (or, again, does) cascade, so the next
request there says so before anyone approves it.
"""

from __future__ import annotations

from hermes_ui.deletion import confirm_gone
from hermes_ui.deletion.models import DeletionRequest
from hermes_ui.observed import facts
from hermes_ui.observed.models import Source
from hermes_ui.platform.endpoints import configured


def siblings(request: DeletionRequest) -> set[str]:
    """The other sessions of the request's bulk request: each has a DELETE of its own,
    so a delegate among them says nothing about this DELETE's cascade."""
    if request.batch_id is None:
        return set()
    ids = DeletionRequest.objects.filter(batch_id=request.batch_id).values_list(
        "session_id", flat=True
    )
    return set(ids) - {request.session_id}


def observe(request: DeletionRequest) -> None:
    """Record on the endpoint whether this DELETE cascaded (when it tells anything)."""
    others = siblings(request)
    result = request.result or {}
    own = {**result, "deleted": [d for d in result.get("deleted", []) if d["id"] not in others]}
    held = confirm_gone.cascade_held(own)
    endpoint = configured(request.endpoint, request.endpoint_fp)
    if held is None or endpoint is None:
        return
    kept = [d["id"] for d in confirm_gone.leftovers(own) if d.get("kind") == "delegate"]
    facts.record_cascade(endpoint, held, Source.DELETION, request.pk, kept)


def items(request: DeletionRequest) -> list[dict]:
    """The leftovers for the pages: id, kind and whether Hermes made it a root."""
    return [
        {**d, "root": not d.get("parent_session_id")}
        for d in confirm_gone.leftovers(request.result or {})
    ]
