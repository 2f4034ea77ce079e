"""A bulk deletion: one request for many sessions, one approval, one execution."""

from __future__ import annotations

import logging

from django.contrib.auth import get_user_model
from django_tasks import task

from hermes_ui.deletion import announce, approval, clock, events, execute, policy
from hermes_ui.deletion import request as deletion_request
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from hermes_ui.hermes import HermesError
from hermes_ui.platform.db_steps import release_connections
from hermes_ui.platform.endpoints import Endpoint

log = logging.getLogger("hermes_ui.deletion")

# How a member's status reads in the batch's result table.
DELETED, SURVIVED, VOID, UNCERTAIN, WAITING = "deleted", "survived", "void", "uncertain", "waiting"
_VERDICT = {
    Status.EXECUTED: DELETED,
    Status.VOID: VOID,
    Status.UNCERTAIN: UNCERTAIN,
    Status.REJECTED: SURVIVED,
    Status.EXPIRED: SURVIVED,
}


def verdict(member: DeletionRequest, batch: DeletionBatch) -> str:
    if member.status in _VERDICT:
        return _VERDICT[member.status]  # type: ignore[index]
    # Still approved after the run: Hermes refused its DELETE; it is still there.
    return SURVIVED if batch.finished_at else WAITING


def create(
    endpoint: Endpoint,
    ids: list[str],
    user,
    reason: str,
    *,
    on_filed=None,
    on_session=None,
    cascades: bool = True,
    selected_by=None,
) -> DeletionBatch:
    """Snapshot and consequences for every selected session, from one read of the lists.

    ``on_filed(batch)`` is called once the batch exists, ``on_session()`` after
    each selected session (a background job's progress). ``cascades=False``
    (an endpoint seen not to cascade) makes a selected delegate of another a
    member of its own. ``selected_by``: who chose the selection, when not ``user``
    (a retention rule's last editor); they may not approve it either. Raises
    ``HermesError`` when the lists cannot be read (nothing is recorded then).
    """
    lists = deletion_request.lists_now(endpoint)
    covered = _covered(endpoint, ids, lists) if cascades else {}
    batch = DeletionBatch.objects.create(
        **endpoint.scope(),
        requester=user,
        requester_name=user.get_username(),
        selected_by=selected_by,
        reason=reason,
        created_at=clock.now(),
    )
    if on_filed is not None:
        on_filed(batch)
    skipped = []
    for session_id in ids:
        if session_id in covered:
            skipped.append({"id": session_id, "why": "delegate_of", "other": covered[session_id]})
        else:
            skipped.extend(_member(endpoint, session_id, user, reason, lists, batch))
        if on_session is not None:
            on_session()
    batch.skipped = sorted(skipped, key=lambda s: s["why"] != "delegate_of")
    batch.save(update_fields=["skipped"])
    announce.batch_requested(batch)
    return batch


def _covered(endpoint: Endpoint, ids: list[str], lists) -> dict[str, str]:
    """Selected delegate id -> the selected session whose DELETE cascades to it."""
    listed = {row["id"]: row for row in lists[0]}
    selected = set(ids)
    covered: dict[str, str] = {}
    for session_id in ids:
        row = listed.get(session_id)
        if row is None:
            continue
        found = deletion_request.current_consequences(endpoint, session_id, row, lists)
        for item in found["cascade"]:
            if item["id"] in selected and item["id"] != session_id:
                covered.setdefault(item["id"], session_id)
    return covered


def _member(endpoint: Endpoint, session_id: str, user, reason: str, lists, batch) -> list[dict]:
    """File one member; what to list under "not members" instead, if it is not one."""
    try:
        made, created = deletion_request.create(
            endpoint, session_id, user, reason, lists=lists, batch=batch
        )
    except HermesError as error:
        return [{"id": session_id, "why": "unreadable", "other": error.code}]
    return [] if created else [{"id": session_id, "why": "open_request", "other": made.pk}]


def members(batch: DeletionBatch) -> list[DeletionRequest]:
    """The members in execution order: a child before its parent (deepest first), so
    no DELETE clears the parent of a member that is still to be compared."""
    found = list(batch.members.order_by("pk"))
    parent = {m.session_id: (m.snapshot.get("row") or {}).get("parent_session_id") for m in found}

    def depth(session_id: str) -> int:
        seen, n = {session_id}, 0
        while (session_id := parent.get(session_id)) in parent and session_id not in seen:  # type: ignore[assignment, operator]
            seen.add(session_id)
            n += 1
        return n

    return sorted(found, key=lambda m: -depth(m.session_id))


def reviewable(batch: DeletionBatch, user) -> list[DeletionRequest]:
    """The pending members, which this admin may decide.

    Raises ``policy.Refusal`` (audited) when the admin may not decide this batch at all.
    """
    pending = [m for m in members(batch) if m.status == Status.PENDING]
    if not pending:
        raise policy.Refusal("not_pending", "No session of this request is waiting for approval.")
    refusal = policy.approval_refusal(pending[0], user)
    # Four-eyes per endpoint and source: an admin of every member's session decides.
    if refusal is None and not all(policy.is_admin(user, m) for m in pending[1:]):
        refusal = policy.Refusal(
            "wrong_role",
            "Some sessions of this request are on sources where you are not admin.",
            403,
        )
    if refusal is not None:
        events.refused(user, pending[0], "deletion_approve", refusal.code)
        raise refusal
    return pending


def decide(
    batch: DeletionBatch, user, decision: str, rule: str, comment: str, *, on_member=None
) -> dict:
    """One decision for every pending member. Returns counts per outcome.

    ``on_member(member)`` is called after each (a background job's progress).
    Raises ``policy.Refusal`` when the admin may not decide this batch at all.
    """
    counts = {"decided": 0, "void": 0, "failed": 0}
    for member in reviewable(batch, user):
        try:
            approval.decide(member, user, decision, rule, comment)
            counts["decided"] += 1
        except policy.Refusal:
            counts["void" if member.status == Status.VOID else "failed"] += 1
        except HermesError:
            counts["failed"] += 1  # unreadable now: it stays pending for another try
        if on_member is not None:
            on_member(member)
    announce.batch_decided(batch, user, decision == approval.APPROVE, counts)
    return counts


def start(batch: DeletionBatch, user) -> bool:
    """Claim the execution (once) and run it off the request. False if already started."""
    approved = [m for m in batch.members.all() if m.status == Status.APPROVED]
    if not all(policy.is_admin(user, m) for m in approved) or not (
        approved or policy.is_admin(user)
    ):
        raise policy.Refusal(
            "wrong_role", "Only an admin of these sessions can execute their deletion.", 403
        )
    if not approved:
        raise policy.Refusal("not_approved", "No session of this request is approved.")
    claimed = DeletionBatch.objects.filter(pk=batch.pk, started_at__isnull=True).update(
        started_at=clock.now(), executor_name=user.get_username()
    )
    if not claimed:
        return False
    spawn(batch.pk, user)
    return True


def spawn(batch_pk: int, user) -> None:
    """Queue the execution for a task worker (``execute_batch``)."""
    execute_batch.enqueue(batch_pk, user.pk)


@task()
def execute_batch(batch_pk: int, user_pk: int) -> None:
    """The execution, on a task worker. Run again after a crash it goes on with the members
    still approved; one whose DELETE was in flight replays its recorded outcome (uncertain
    while the record says running), never a blind second DELETE (``execute.execute``)."""
    try:
        user = get_user_model().objects.get(pk=user_pk)
        run(DeletionBatch.objects.get(pk=batch_pk), user)
    except Exception:
        log.exception("deletion batch=%s failed", batch_pk)
    finally:
        release_connections()


def run(batch: DeletionBatch, user) -> None:
    """Execute every approved member in turn, through the single DELETE path."""
    try:
        for member in members(batch):
            member.refresh_from_db()
            if member.status != Status.APPROVED:
                continue
            try:
                execute.execute(member, user)
            except (policy.Refusal, HermesError) as error:
                # The member records its own outcome (void, expired, uncertain, refused).
                log.info(
                    "deletion batch=%s member=%s stopped code=%s",
                    batch.pk,
                    member.pk,
                    getattr(error, "code", ""),
                )
    finally:
        batch.finished_at = clock.now()
        batch.save(update_fields=["finished_at"])
        announce.batch_executed(batch, user)
