"""The API's key ledger: one ``Idempotency-Key`` names one request of one person.

The pages' domain code replays a repeated submission by itself (``apply.attempt``,
the chat turn's key, a deletion's own key, each bulk member's key); the ledger adds
what a script needs on top: a key sent again with another body, another session or
another operation is refused (422) instead of being taken as a new intent, and the
key leads back to the write's outcome (``GET /api/v1/outcomes/{key}``).

Its rows are ``IdempotencyRecord``s of capability ``api.<operation>`` without audit
events (the domain code writes the same events the pages write), holding the
person's id in their key. A change (create, patch, fork) needs none: its replay
record, under the person's own form key (``personal``), is its ledger row
(``checked``), which spares the write two commits.
"""

from __future__ import annotations

import base64
import hashlib

from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from hermes_ui.api.auth import require_write
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.audit import idempotency
from hermes_ui.audit.models import AuditEvent, IdempotencyRecord, Outcome

PREFIX = "api."


def write_key(request) -> str:
    """The write's ``Idempotency-Key``, once the token may write: checked before anything
    the body names, so a token that may not write learns nothing (whether a tag exists)."""
    require_write(request)
    key = request.headers.get("Idempotency-Key", "")
    if not key:
        raise bad_request(
            "Writes need an Idempotency-Key header (16-64 letters, digits, - or _).",
            "idempotency_key_required",
        )
    if not idempotency.valid_key(key):
        raise bad_request(
            "The Idempotency-Key must be 16-64 letters, digits, - or _.", "bad_idempotency_key"
        )
    return key


def refuse_reuse(user, key: str, capability: str, endpoint_id: str, inputs: dict) -> None:
    """422 when this person used ``key`` for another operation, session or body."""
    effective = idempotency.effective_key(key, inputs)
    if _used_otherwise(user, key, capability, endpoint_id, effective):
        raise reused()


def personal(key: str, user) -> str:
    """The form key the domain code gets for ``key``: the person's own, so that two
    people who happen to send the same key never meet in the pages' replay records
    (a form key is minted per page, an API key chosen by its client)."""
    digest = hashlib.sha256(f"{user.pk}:{key}".encode()).digest()
    return base64.urlsafe_b64encode(digest).decode()[:43].replace("=", "")


class Claim:
    """A claimed key: ``fresh`` when this request is its first use; ``key`` is the form
    key to hand to the domain code (``personal``), ``sent`` the client's. Without a
    ``record``, the domain's own replay record is the ledger (``checked``)."""

    def __init__(self, record: IdempotencyRecord | None, fresh: bool, sent: str, user):
        self.record, self.fresh, self.sent = record, fresh, sent
        self.key = personal(sent, user)
        self.known: IdempotencyRecord | None = None  # the domain's record of a repeat

    @property
    def pointer(self) -> dict:
        if self.record is None:
            return pointer_of(self.known) if self.known is not None else {}
        return (self.record.result or {}).get("pointer") or {}

    def done(self, pointer: dict, outcome: str = Outcome.SUCCESS) -> None:
        """Remember what the write made (ids only), for replays and ``/outcomes``."""
        if self.record is None:
            return  # the domain's record says it
        self.record.outcome = outcome
        self.record.result = {"pointer": pointer}
        self.record.finished_at = timezone.now()
        self.record.save(update_fields=["outcome", "result", "finished_at"])

    def release(self) -> None:
        """Nothing was done (refused, or it failed before anything was sent): the key
        may be sent again with this body."""
        if self.record is not None:
            IdempotencyRecord.objects.filter(pk=self.record.pk).delete()


def claim(request, op: str, ep, inputs: dict, session_id: str = "") -> Claim:
    """Claim the request's key for ``op`` with ``inputs`` (the whole body and path)."""
    key = write_key(request)
    user = request.user
    full = {**inputs, "op": op, "user": user.pk}
    capability = PREFIX + op
    refuse_reuse(user, key, capability, ep.id, full)
    effective = idempotency.effective_key(key, full)
    try:
        with transaction.atomic():
            record = IdempotencyRecord.objects.create(
                capability=capability,
                endpoint=ep.id,
                key=effective,
                user=user,
                session_id=session_id[:300],
            )
        return Claim(record, True, key, user)
    except IntegrityError:
        record = IdempotencyRecord.objects.get(capability=capability, endpoint=ep.id, key=effective)
        return Claim(record, False, key, user)


def checked(request, capability: str, ep, effective: str) -> Claim:
    """The key of a change whose replay record is its ledger row: 422 if this person
    used it otherwise, else whether this is its first use. ``effective`` is the key the
    domain will record the change under (made from ``personal``)."""
    key = write_key(request)
    user = request.user
    rows = _uses(user, key)
    if any(row[:3] != (capability, ep.id, effective) for row in rows):
        raise reused()
    found = Claim(None, not rows, key, user)
    if rows:
        found.known = IdempotencyRecord.objects.get(pk=rows[0][3])
    return found


def _uses(user, key: str) -> list[tuple]:
    """(capability, endpoint, key, pk) of what this person sent with ``key``: ledger rows,
    and the replay records of the changes made with their personal form key."""
    return list(
        IdempotencyRecord.objects.filter(
            Q(capability__startswith=PREFIX, key__startswith=f"{key}.")
            | Q(key__startswith=f"{personal(key, user)}."),
            user=user,
        ).values_list("capability", "endpoint", "key", "pk")
    )


def _used_otherwise(user, key: str, capability: str, endpoint_id: str, effective: str) -> bool:
    return any(row[:3] != (capability, endpoint_id, effective) for row in _uses(user, key))


# The changes whose replay records are their ledger rows, by operation.
CHANGES = {"session_create": "create_session", "session_patch": "patch_session"}
CHANGES["session_fork"] = "fork_session"


def pointer_of(record: IdempotencyRecord) -> dict:
    """Where a change's outcome is: its first audit event (a replay writes more)."""
    event = (
        AuditEvent.objects.filter(
            capability=record.capability, endpoint=record.endpoint, idempotency_key=record.key
        )
        .order_by("pk")
        .values_list("pk", flat=True)
        .first()
    )
    return {"event_id": event} if event else {}


def reused() -> ApiError:
    return ApiError(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was already used for another request (another operation, "
        "session or body); send a new key for each intended change. Nothing was done.",
    )


def find(user, key: str) -> tuple[IdempotencyRecord, str, dict] | None:
    """This person's ledger row of ``key`` (the key as the client sent it), its operation
    and where its outcome is."""
    if not idempotency.valid_key(key):
        return None
    rows = _uses(user, key)
    if not rows:
        return None
    record = IdempotencyRecord.objects.get(pk=rows[0][3])
    if record.capability in CHANGES:
        return record, CHANGES[record.capability], pointer_of(record)
    pointer = (record.result or {}).get("pointer") or {}
    return record, record.capability.removeprefix(PREFIX), pointer
