"""A dataset export's audit event: recorded as running, settled when the download ends.

Counts, format and flags only: never a label, a correction or any text.
"""

from collections.abc import Callable

from hermes_ui.audit import trail
from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.audit.redact import evidence as clean_evidence

CAPABILITY = "review.dataset_export"


def start(user, ep, facts: dict, counts: dict, redactor) -> Callable[[str | None, bool], None]:
    """Record the export as running; return the ``on_done`` that settles it."""
    event = trail.record(
        user, capability=CAPABILITY, endpoint=ep.id, outcome=Outcome.RUNNING, evidence=facts
    )

    def finish(sha256, finished):
        done = {
            **facts,
            "count": counts["records"],
            "masked": redactor.count,
            "sha256": sha256,
            "stage": "finished" if finished else "interrupted",
        }
        AuditEvent.objects.filter(pk=event.pk).update(
            outcome=Outcome.SUCCESS if finished else Outcome.UNCERTAIN,
            evidence=clean_evidence(done),
        )

    return finish
