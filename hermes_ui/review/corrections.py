"""Corrections: what an assistant message should have said, one per reviewer per message.

The original is always the message as Hermes returns it (``plain_text`` of
its row), never text the browser posted. The correction's text stays in its
row; the audit trail keeps ids and its length.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.db import transaction

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.compare.align import text_diff
from hermes_ui.hermes import transcript
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared
from hermes_ui.review.models import Correction

SAVE = "review.correction_save"
CORRECTABLE_ROLE = "assistant"


class NotCorrectable(ValueError):
    """The message is not there, or it is not the assistant's."""


def message_row(messages: dict, message_id: int) -> dict:
    """The row of ``message_id`` in a ``get_messages`` answer, if it can be corrected."""
    for row in messages.get("data", []):
        if isinstance(row, dict) and row.get("id") == message_id:
            if row.get("role") != CORRECTABLE_ROLE:
                raise NotCorrectable("Only the assistant's messages can be corrected.")
            return row
    raise NotCorrectable("This session has no such message (its transcript may have changed).")


def original_text(row: dict) -> str:
    return transcript.plain_text(row)


def mine(ep: Endpoint, user, session_id: str, message_id: int) -> Correction | None:
    return (
        Correction.objects.filter(
            **ep.scope(), session_id=session_id, message_id=message_id, author=user
        )
        .order_by("-updated_at", "-id")
        .first()
    )


def save(ep: Endpoint, user, session_id: str, message_id: int, text: str) -> Correction:
    """Create the reviewer's correction of the message, or replace its text; audited."""
    with transaction.atomic():
        found = mine(ep, user, session_id, message_id)
        created = found is None
        if found is None:
            found = Correction(
                **ep.scope(),
                session_id=session_id,
                message_id=message_id,
                author=user,
                author_name=user.get_username(),
            )
        found.text = text
        found.save()
        trail.record(
            user,
            capability=SAVE,
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            session_id=session_id,
            evidence={
                "id": found.pk,
                "session_id": session_id,
                "message_id": message_id,
                "length": len(text),
                "created": created,
            },
        )
    return found


# Whether the session has any correction, compiled once (platform.prepared): most have
# none, and this answer costs a tenth of reading the rows through the ORM.
_ANY = Prepared.any_row(
    lambda ep, fp, sid: Correction.objects.filter(endpoint=ep, endpoint_fp=fp, session_id=sid)
)


def for_session(ep: Endpoint, session_id: str) -> dict[int, list[Correction]]:
    """The session's corrections by message id, newest first (one query when it has none,
    two when it has some)."""
    found: dict[int, list[Correction]] = {}
    if not _ANY.found(ep.id, ep.fingerprint, session_id):
        return found
    for correction in Correction.objects.filter(**ep.scope(), session_id=session_id):
        found.setdefault(correction.message_id, []).append(correction)  # type: ignore[arg-type]
    return found


@dataclass
class Shown:
    """A correction as the page shows it: the message with deletions, and the correction
    with insertions (``compare.align.text_diff`` pieces, rendered escaped)."""

    correction: Correction
    removed: list[tuple[str, str]]
    inserted: list[tuple[str, str]]


def shown(row: dict, found: list[Correction]) -> list[Shown]:
    if not found:
        return []
    original = original_text(row)
    return [Shown(c, *text_diff(original, c.text)) for c in found]
