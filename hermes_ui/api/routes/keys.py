"""The API's key ledger: one ``Idempotency-Key`` names one request of one person.

The pages' domain code replays a repeated submission by itself (``apply.attempt``,
the chat turn's key, a deletion's own key, each bulk member's key); the ledger adds
what a script needs on top: a key sent again with another body, another session or
another operation is refused (422) instead of being taken as a new intent, and the
key leads back to the write's outcome (``GET /api/v1/outcomes/{key}``). Its rows
are ``IdempotencyRecord``s of capability ``api.<operation>`` without audit events:
the domain code writes the same events the pages write. The effective key holds
the person's id, so two people's keys never meet.
"""

from __future__ import annotations

import base64
import hashlib

from django.db import IntegrityError, transaction
from django.utils import timezone

from hermes_ui.api.auth import require_write
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.audit import idempotency
from hermes_ui.audit.models import IdempotencyRecord, Outcome

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
    key to hand to the domain code (``personal``), ``sent`` the client's."""

    def __init__(self, record: IdempotencyRecord, fresh: bool, sent: str, user):
        self.record, self.fresh, self.sent = record, fresh, sent
        self.key = personal(sent, user)

    @property
    def pointer(self) -> dict:
        return (self.record.result or {}).get("pointer") or {}

    def done(self, pointer: dict, outcome: str = Outcome.SUCCESS) -> None:
        """Remember what the write made (ids only), for replays and ``/outcomes``."""
        self.record.outcome = outcome
        self.record.result = {"pointer": pointer}
        self.record.finished_at = timezone.now()
        self.record.save(update_fields=["outcome", "result", "finished_at"])

    def release(self) -> None:
        """Nothing was done (refused, or it failed before anything was sent): the key
        may be sent again with this body."""
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


def _used_otherwise(user, key: str, capability: str, endpoint_id: str, effective: str) -> bool:
    used = IdempotencyRecord.objects.filter(
        user=user, capability__startswith=PREFIX, key__startswith=f"{key}."
    ).values_list("capability", "endpoint", "key")
    return any(row != (capability, endpoint_id, effective) for row in used)


def reused() -> ApiError:
    return ApiError(
        422,
        "idempotency_key_reused",
        "This Idempotency-Key was already used for another request (another operation, "
        "session or body); send a new key for each intended change. Nothing was done.",
    )


def find(user, key: str) -> IdempotencyRecord | None:
    """This person's ledger row of ``key`` (the key as the client sent it)."""
    if not idempotency.valid_key(key):
        return None
    return (
        IdempotencyRecord.objects.filter(
            user=user, capability__startswith=PREFIX, key__startswith=f"{key}."
        )
        .order_by("-created_at")
        .first()
    )
