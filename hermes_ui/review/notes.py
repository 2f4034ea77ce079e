"""Notes: a thread per session and per message, with @mentions; audited without content.

A note's body is the author's own text about a transcript: it stays in its
row. The audit trail keeps ids, the body's length and how many users it
mentioned; nothing here logs the body.
"""

from __future__ import annotations

from django.db import transaction
from django.db.models import Count

from hermes_ui.audit import trail
from hermes_ui.audit.models import Outcome
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared
from hermes_ui.review import mentions
from hermes_ui.review.models import Mention, Note
from hermes_ui.web.roles import ADMIN, has_role

ADD, DELETE = "review.note_add", "review.note_delete"


def thread(ep: Endpoint, session_id: str, message_id: int | None) -> list[Note]:
    """The notes of a session (``message_id`` None) or of one of its messages, oldest first."""
    return list(
        Note.objects.filter(**ep.scope(), session_id=session_id, message_id=message_id)
        .select_related("author")
        .order_by("created_at", "id")
    )


# Every session page asks it: compiled once (platform.prepared).
_COUNTS = Prepared(
    lambda ep, fp, sid: (
        Note.objects.filter(endpoint=ep, endpoint_fp=fp, session_id=sid)
        .values("message_id")
        .annotate(n=Count("id"))
        .values_list("message_id", "n")
        .order_by()
    )
)


def counts(ep: Endpoint, session_id: str) -> dict[int | None, int]:
    """How many notes each message of the session has, and the session's own thread
    (under ``None``): one query for the whole page."""
    return dict(_COUNTS.rows(ep.id, ep.fingerprint, session_id))


def add(ep: Endpoint, user, session_id: str, message_id: int | None, body: str) -> Note:
    """Store the note and its mentions, and audit it (ids and a length only).

    Raises ``Unseeing`` when it mentions someone who may not see the session:
    the view asks ``mentions.unseeing`` first and says who.
    """
    mentioned = mentions.users(body, author=user)
    refused = mentions.unseeing(ep.id, session_id, mentioned)
    if refused:
        raise Unseeing(refused)
    with transaction.atomic():
        note = Note.objects.create(
            **ep.scope(),
            session_id=session_id,
            message_id=message_id,
            author=user,
            author_name=user.get_username(),
            body=body,
        )
        Mention.objects.bulk_create([Mention(note=note, user=u) for u in mentioned])
        _audit(user, ADD, ep, note, length=len(body), count=len(mentioned))
    if mentioned:
        events.emit(
            events.REVIEW_MENTIONED,
            endpoint=ep.id,
            actor=user,
            users=mentioned,
            ids={"note_id": note.pk, "session_id": session_id, "message_id": message_id},
            counts={"mentioned": len(mentioned)},
        )
    return note


class Unseeing(ValueError):
    """A note names people who may not see its session."""

    def __init__(self, names: list[str]):
        super().__init__(refusal(names))
        self.names = names


def refusal(names: list[str]) -> str:
    """The form error for mentions of people who may not see the session."""
    who = ", ".join(f"@{name}" for name in names)
    return (
        f"{who} cannot see this session, so the note cannot mention them. "
        "Remove the mention, or ask an admin to give them access first."
    )


def may_delete(user, note: Note) -> bool:
    """Authors delete their own notes; admins of the note's endpoint any there."""
    if has_role(user, ADMIN, note.endpoint):
        return True
    return note.author_id is not None and note.author_id == user.pk


def delete(ep: Endpoint, user, note: Note) -> None:
    with transaction.atomic():
        _audit(user, DELETE, ep, note, count=note.mentions.count())
        note.delete()


def _audit(user, capability: str, ep: Endpoint, note: Note, **figures) -> None:
    trail.record(
        user,
        capability=capability,
        endpoint=ep.id,
        outcome=Outcome.SUCCESS,
        session_id=note.session_id,
        evidence={
            "id": note.pk,
            "session_id": note.session_id,
            "message_id": note.message_id,
            **figures,
        },
    )
