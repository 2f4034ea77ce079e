"""Adding and removing tags on sessions, audited; idempotent.

The audit trail keeps the tag's id, never its name: names are user text
(anyone with the admin role types them), like titles. The ids and counts say
what changed; ``/tags/`` says which name the id has now.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.core.exceptions import PermissionDenied
from django.db import DEFAULT_DB_ALIAS, transaction

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared
from hermes_ui.tags import protection
from hermes_ui.tags.models import SessionTag, Tag

ADD, REMOVE = "add", "remove"
CHUNK = 500  # ids per query


@dataclass(frozen=True)
class Changed:
    op: str
    tag: Tag
    changed: list[str]  # sessions whose tags changed
    asked: int  # sessions asked about (the rest had it already, or did not)

    @property
    def unchanged(self) -> int:
        return self.asked - len(self.changed)


# Every session page reads them: compiled once (platform.prepared), the fields shown.
_SHOWN = ["id", "name", "colour"]
_OF_SESSION = Prepared(
    lambda ep, fp, sid: Tag.objects.filter(
        sessions__endpoint=ep, sessions__endpoint_fp=fp, sessions__session_id=sid
    ).values_list(*_SHOWN)
)


def of_session(ep: Endpoint, session_id: str) -> list[Tag]:
    """The session's tags in the list's order, with their id, name and colour read."""
    rows = _OF_SESSION.rows(ep.id, ep.fingerprint, session_id)
    return [Tag.from_db(DEFAULT_DB_ALIAS, _SHOWN, row) for row in rows]


def of_sessions(ep: Endpoint, ids: list[str]) -> dict[str, list[tuple[str, str]]]:
    """Each session's tags as (name, colour), by name, in a query per ``CHUNK`` ids
    (plain values: a page of badges builds no model instances)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for start in range(0, len(ids), CHUNK):
        rows = SessionTag.objects.filter(**ep.scope(), session_id__in=ids[start : start + CHUNK])
        for session_id, name, colour in rows.values_list("session_id", "tag__name", "tag__colour"):
            found.setdefault(session_id, []).append((name, colour))
    for tags in found.values():
        tags.sort(key=lambda tag: tag[0].lower())
    return found


class AdminOnly(PermissionDenied):
    """Removing a tag that protects sessions (``protection``) needs the admin role."""


def change(ep: Endpoint, user, op: str, tag: Tag, ids: list[str]) -> Changed:
    """Add ``tag`` to (or remove it from) ``ids``; one audit event for the change.

    Raises ``AdminOnly`` for a removal ``protection.removal_refusal`` refuses.
    """
    ids = list(dict.fromkeys(ids))
    evidence = {}
    if op == REMOVE and protection.protects(tag):
        refusal = protection.removal_refusal(user, tag, ep.id)
        if refusal:
            raise AdminOnly(refusal)
        # A protection taken away is audited by the tag's name, not only its id.
        evidence["keep_tag"] = tag.name
    with transaction.atomic():
        having = _having(ep, tag, ids)
        if op == ADD:
            changed = [session_id for session_id in ids if session_id not in having]
            SessionTag.objects.bulk_create(
                [SessionTag(**ep.scope(), session_id=s, tag=tag, added_by=user) for s in changed],
                ignore_conflicts=True,
            )
        else:
            changed = [session_id for session_id in ids if session_id in having]
            for start in range(0, len(changed), CHUNK):
                SessionTag.objects.filter(
                    **ep.scope(), tag=tag, session_id__in=changed[start : start + CHUNK]
                ).delete()
        record(
            user,
            capability=f"tags.{op}",
            endpoint=ep.id,
            outcome=Outcome.SUCCESS,
            session_id=ids[0] if len(ids) == 1 else "",
            evidence={
                "id": tag.pk,
                "count": len(changed),
                "sessions": changed,
                "op": op,
                **evidence,
            },
        )
    if op == ADD and changed:
        events.emit(
            events.SESSION_TAGGED,
            endpoint=ep.id,
            actor=user,
            ids={"tag_id": tag.pk, "sessions": changed},
            counts={"sessions": len(changed)},
        )
    return Changed(op, tag, changed, len(ids))


def _having(ep: Endpoint, tag: Tag, ids: list[str]) -> set[str]:
    having: set[str] = set()
    for start in range(0, len(ids), CHUNK):
        having.update(
            SessionTag.objects.filter(
                **ep.scope(), tag=tag, session_id__in=ids[start : start + CHUNK]
            ).values_list("session_id", flat=True)
        )
    return having
