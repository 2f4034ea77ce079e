"""Writing audit events."""

import logging

from django.conf import settings

from hermes_ui.audit import redact
from hermes_ui.audit.models import AuditEvent, Outcome

log = logging.getLogger("hermes_ui.audit")


def record(
    user,
    *,
    capability: str,
    endpoint: str,
    outcome: str,
    session_id: str = "",
    idempotency_key: str = "",
    http_status: int | None = None,
    error_code: str = "",
    evidence: dict | None = None,
) -> AuditEvent:
    """Record one action. ``evidence`` is redacted here, whatever the caller passes."""
    if outcome not in Outcome.values:
        raise ValueError(f"unknown outcome {outcome!r}")
    authenticated = user is not None and getattr(user, "is_authenticated", False)
    # The server the action was made against, as configured now: the event
    # keeps it even after the id is pointed elsewhere.
    ep = settings.HERMES_ENDPOINTS.get(endpoint)
    event = AuditEvent.objects.create(
        user=user if authenticated else None,
        username=user.get_username() if authenticated else "(system)",
        capability=capability,
        endpoint=endpoint,
        endpoint_fp=ep.fingerprint if ep else "",
        base_url=ep.public_url if ep else "",
        session_id=(session_id or "")[:300],
        idempotency_key=idempotency_key or "",
        outcome=outcome,
        http_status=http_status,
        error_code=error_code or "",
        evidence=redact.evidence(evidence or {}),
    )
    # Ids only: the log line never carries titles, messages or keys' secrets.
    log.info(
        "audit capability=%s endpoint=%s outcome=%s status=%s event=%s",
        capability,
        endpoint,
        outcome,
        http_status,
        event.pk,
    )
    return event


def running(user, *, capability: str, endpoint: str, facts: dict, session_id: str = ""):
    """Record an action that lasts (a download) as running; return ``settle(more, finished)``,
    which records its outcome and ``facts`` plus ``more`` (redacted) once it ends."""
    event = record(
        user,
        capability=capability,
        endpoint=endpoint,
        outcome=Outcome.RUNNING,
        session_id=session_id,
        evidence=facts,
    )

    def settle(more: dict, finished: bool) -> None:
        done = {**facts, **more, "stage": "finished" if finished else "interrupted"}
        AuditEvent.objects.filter(pk=event.pk).update(
            outcome=Outcome.SUCCESS if finished else Outcome.UNCERTAIN,
            evidence=redact.evidence(done),
        )

    return settle
