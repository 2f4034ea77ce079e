"""Audit events of the deletion workflow, with redacted evidence.

Capabilities: ``deletion_request``, ``deletion_approve``, ``deletion_reject``,
``deletion_withdraw``, ``deletion_void``, ``deletion_expire``,
``deletion_check`` and ``session_delete`` (the latter written by
``idempotency.run_once`` around the one DELETE). Reasons and comments go
through ``redact.evidence``, which keeps only their fingerprints.
"""

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.deletion.models import DeletionRequest


def record(
    user,
    request: DeletionRequest,
    capability: str,
    outcome: str = Outcome.SUCCESS,
    *,
    error_code: str = "",
    **evidence,
) -> None:
    trail.record(
        user,
        capability=capability,
        endpoint=request.endpoint,
        outcome=outcome,
        session_id=request.session_id,
        error_code=error_code,
        evidence={"request_id": request.pk, "state": request.status, **evidence},
    )


def refused(user, request: DeletionRequest, capability: str, code: str) -> None:
    record(user, request, capability, Outcome.REFUSED, error_code=code, code=code)
