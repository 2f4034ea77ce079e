"""A dataset export's audit event: recorded as running, settled when the download ends.

Counts, format and flags only: never a label, a correction or any text.
"""

from collections.abc import Callable

from hermes_ui.audit import trail

CAPABILITY = "review.dataset_export"


def start(user, ep, facts: dict, counts: dict, redactor) -> Callable[[str | None, bool], None]:
    """Record the export as running; return the ``on_done`` that settles it."""
    settle = trail.running(user, capability=CAPABILITY, endpoint=ep.id, facts=facts)

    def finish(sha256, finished):
        settle({"count": counts["records"], "masked": redactor.count, "sha256": sha256}, finished)

    return finish
