"""The deletion policy: who may approve and execute, on which grounds, and for how long."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta

from hermes_ui.access.rules import access_of
from hermes_ui.deletion import clock, events
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.platform.endpoints import Endpoint, configured
from hermes_ui.web.roles import ADMIN, SUPPORT

APPROVAL_VALIDITY = timedelta(minutes=15)

# Grounds for deleting, and grounds for keeping. Values are stored and audited.
APPROVE_RULES = {
    "owner_request": "Owner or data-subject request (privacy)",
    "retention_expired": "Past the retention period",
    "test_or_duplicate": "Test, duplicate or abandoned session",
    "sensitive_content": "Holds secrets or sensitive data (incident clean-up)",
}
REJECT_RULES = {
    "legal_hold": "Under legal hold or needed as evidence",
    "still_in_use": "Still in use, or its branches depend on it",
    "insufficient_reason": "The reason does not justify deletion",
}
RULES = {**APPROVE_RULES, **REJECT_RULES}


@dataclass
class Refusal(Exception):
    """The dashboard refuses a step; ``message`` says why and what to do instead."""

    code: str
    message: str
    status: int = 409

    def __str__(self) -> str:
        return self.message


def endpoint_of(request: DeletionRequest) -> Endpoint:
    """The Hermes the request was made against; a refusal if its id now names another."""
    endpoint = configured(request.endpoint, request.endpoint_fp)
    if endpoint is None:
        raise Refusal(
            "endpoint_moved",
            f"Endpoint {request.endpoint!r} no longer points at the Hermes this request was "
            "made against (or it was removed). Nothing was read or deleted. Request the "
            "deletion again on the endpoint as it is now, if it is still wanted.",
        )
    return endpoint


def source_of(request: DeletionRequest) -> str | None:
    """The session's ``source`` as the snapshot recorded it (None when unknown)."""
    return ((request.snapshot or {}).get("row") or {}).get("source")


def is_admin(user, request: DeletionRequest | None = None) -> bool:
    """Admin on the request's endpoint and source; without one, admin somewhere.

    Four-eyes per endpoint: only an admin on the endpoint (and source) of the
    session approves, executes or withdraws its deletion (the one rule,
    ``access.rules``). Without a request, whether to show admin tools at all.
    """
    access = access_of(user)
    if request is None:
        return access.has_somewhere(ADMIN)
    return access.has(ADMIN, request.endpoint, source_of(request))


def sees(request: DeletionRequest, user) -> bool:
    """May this person see the session the request is about at all (else: a 404)."""
    return access_of(user).sees(request.endpoint, source_of(request))


def visible_q(user, prefix: str = ""):
    """The requests a person may list: as admin where they are admin, else their own.

    ``Q`` over ``DeletionRequest`` (``access.rules`` decides; the source is the
    snapshot's). ``prefix`` (``"member__"``...) prefixes the fields for a related model's query.
    """
    from django.db.models import Q

    access = access_of(user)
    if access.instance_admin:
        return Q()
    fields = {
        "endpoint": f"{prefix}endpoint",
        "source": f"{prefix}snapshot__row__source",
    }
    own = Q(**{f"{prefix}requester": user}) & (
        Q() if access.everything else access.session_q(SUPPORT, **fields)
    )
    if not access.has_somewhere(ADMIN):
        return own
    return own | access.session_q(ADMIN, **fields)


_ID_KEYS = ("id", "parent_id", "parent_session_id")


def _ids_in(value, found: set[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _ID_KEYS and isinstance(item, str) and item:
                found.add(item)
            else:
                _ids_in(item, found)
    elif isinstance(value, list):
        for item in value:
            _ids_in(item, found)


def hidden_ids(user, request: DeletionRequest, *more) -> frozenset[str]:
    """The session ids a case names (its consequences, its result, ``more``) that this
    person may not see: for a source-limited person, those the index does not hold
    with one of their sources (the case's own session aside, seen by its snapshot).
    Pages show them as "a session you can't open"."""
    from hermes_ui.index.models import IndexedSession

    access = access_of(user)
    if not access.source_limited(request.endpoint):
        return frozenset()
    named: set[str] = set()
    _ids_in([request.consequences, request.result, *more], named)
    named.discard(request.session_id)
    if not named:
        return frozenset()
    seen = set(
        IndexedSession.objects.filter(access.session_q())
        .filter(endpoint=request.endpoint, session_id__in=named)
        .values_list("session_id", flat=True)
    )
    return frozenset(named - seen)


def is_requester(request: DeletionRequest, user) -> bool:
    return request.requester_id is not None and request.requester_id == user.pk


def selected_by(request: DeletionRequest) -> int | None:
    """The pk of who chose the request's batch for its requester, if anyone did."""
    if request.batch_id is None:
        return None
    return (
        DeletionBatch.objects.filter(pk=request.batch_id)
        .values_list("selected_by", flat=True)
        .first()
    )


def may_view(request: DeletionRequest, user) -> bool:
    return sees(request, user) and (is_admin(user, request) or is_requester(request, user))


# Four eyes that see the whole deletion: a source-limited admin may not decide on one
# that also removes sessions (delegates, a lineage) of sources they cannot open.
def _unseen() -> Refusal:
    return Refusal(
        "unseen_sessions",
        "This deletion also removes sessions you cannot open (of sources outside your "
        "grant); an admin who can see all of them must decide on it.",
        403,
    )


def approval_refusal(request: DeletionRequest, user) -> Refusal | None:
    if not is_admin(user, request):
        return Refusal(
            "wrong_role",
            "Only an admin of this session's endpoint can approve or reject its deletion.",
            403,
        )
    if hidden_ids(user, request):
        return _unseen()
    if is_requester(request, user):
        return Refusal(
            "self_approval",
            "You asked for this deletion, so another admin must approve it (four-eyes rule).",
            403,
        )
    if selected_by(request) == user.pk:
        return Refusal(
            "self_approval",
            "You chose what this request deletes (you last changed the retention rule that "
            "filed it), so another admin must approve it (four-eyes rule).",
            403,
        )
    if request.status != Status.PENDING:
        return Refusal(
            "not_pending",
            f"This request is {request.get_status_display()}; only a pending request "
            "can be approved or rejected.",
        )
    return None


def batch_refusal(request: DeletionRequest) -> Refusal | None:
    """One approval covers a bulk request: its members are not decided one by one."""
    if request.batch_id is None:
        return None
    return Refusal(
        "in_batch",
        "This session is part of a bulk deletion request: decide the request as a whole.",
    )


def expire_if_due(request: DeletionRequest) -> bool:
    """Move an approved request past its validity to ``expired``. True if it expired now."""
    if request.status != Status.APPROVED or request.expires_at is None:
        return False
    if clock.now() < request.expires_at:
        return False
    request.status = Status.EXPIRED
    request.status_note = (
        f"The approval expired at {request.expires_at:%Y-%m-%d %H:%M:%S %Z} without being "
        "executed. Nothing was deleted."
    )
    request.save(update_fields=["status", "status_note", "updated_at"])
    events.record(None, request, "deletion_expire")
    return True


def expire_due() -> int:
    """Expire every approval past its validity (the queue calls this as it refreshes)."""
    due = DeletionRequest.objects.filter(status=Status.APPROVED, expires_at__lte=clock.now())
    return sum(expire_if_due(request) for request in due)


def execution_refusal(request: DeletionRequest, user) -> Refusal | None:
    if not is_admin(user, request):
        return Refusal("wrong_role", "Only an admin can execute an approved deletion.", 403)
    if hidden_ids(user, request):
        return _unseen()
    if request.status in (Status.EXECUTED, Status.UNCERTAIN):
        return None  # a repeat: the view answers with the recorded result
    expire_if_due(request)
    if request.status == Status.EXPIRED:
        return Refusal(
            "approval_expired",
            "This approval has expired (approvals are valid for 15 minutes). Nothing was "
            "deleted. Request the deletion again for a fresh review.",
        )
    if request.status != Status.APPROVED:
        return Refusal(
            "not_approved",
            f"This request is {request.get_status_display()}; only an approved request "
            "can be executed.",
        )
    if request.approver_id is None or request.approver_id in (
        request.requester_id,
        selected_by(request),
    ):
        return Refusal(
            "self_approval",
            "This approval was not given by a second person, so it does not count. "
            "Another admin must approve the request.",
            403,
        )
    return None
