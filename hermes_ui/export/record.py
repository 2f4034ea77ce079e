"""An export's audit event: recorded as running, settled when the download ends."""

from collections.abc import Callable

from hermes_ui.audit import trail

CAPABILITY = "session_export"


def start(user, ep, session_id: str, facts: dict, redactor) -> Callable[[str | None, bool], None]:
    """Record the export as running; return the ``on_done`` that settles it."""
    settle = trail.running(
        user, capability=CAPABILITY, endpoint=ep.id, facts=facts, session_id=session_id
    )

    def finish(sha256, finished):
        settle({"masked": redactor.count, "sha256": sha256}, finished)

    return finish
