"""Writes: tags, review queue items, deletion requests. Each needs the ``write`` scope
and an ``Idempotency-Key`` header (checked before anything the body names), and runs
through ``audit.idempotency.run_once`` as the pages' forms do: a repeat of (key, body) by
the same person returns the first outcome and changes nothing again; a key reused for
another request is refused (422, ``keys.refuse_reuse``). The other writes are in
``changes``, ``chat``, ``deletions``, ``notes`` and ``jobs``."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from ninja import Field, Router, Schema, Status

from hermes_ui.api.document import Comment
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common, keys
from hermes_ui.api.routes.keys import write_key as _write_key
from hermes_ui.audit import idempotency
from hermes_ui.audit.models import Outcome
from hermes_ui.deletion import request as deletion_request
from hermes_ui.deletion.forms import MAX_TEXT, RequestForm
from hermes_ui.hermes import HermesError
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.review import items, queues
from hermes_ui.tags import protection, region, tagging
from hermes_ui.tags.models import Tag
from hermes_ui.web.failures import status_for
from hermes_ui.web.roles import REVIEWER, SUPPORT

router = Router(tags=["writes"])
MAX_IDS = 500


class TagChange(Schema):
    tag: str  # the tag's name (any case) or its id


class QueueItems(Schema):
    session_ids: list[str]
    message_id: int | None = None


class DeletionAsk(Schema):
    reason: Comment = Field(json_schema_extra={"maxLength": MAX_TEXT})


class DeletionAsked(Schema):
    request_id: int
    created: bool
    session_id: str
    state: str
    replayed: bool


def _replayed(request, capability: str, ep, inputs: dict, perform, session_id: str = ""):
    """Run ``perform()`` once per (person, key, inputs); answer its result as JSON."""
    key = _write_key(request)
    full = {**inputs, "user": request.user.pk, "via": "api"}
    keys.refuse_reuse(request.user, key, capability, ep.id, full)

    def run(_effective_key):
        try:
            return perform()
        except HermesError as error:
            return idempotency.Result(
                Outcome.REJECTED,
                http_status=status_for(error),
                error_code=error.code or "hermes_error",
                message=str(error),
            )

    result = idempotency.run_once(
        capability=capability,
        endpoint_id=ep.id,
        form_key=key,
        inputs=full,
        user=request.user,
        perform=run,
        session_id=session_id,
    )
    if not result.ok:
        raise ApiError(
            result.http_status or 409,
            result.error_code or result.outcome,
            result.message or "The request did not succeed.",
        )
    return {**result.result, "replayed": result.replayed}


def _tag(text: str) -> Tag:
    found = Tag.objects.filter(pk=int(text)).first() if text.isdigit() and len(text) < 12 else None
    found = found or Tag.objects.filter(name__iexact=text.strip()).first()
    if found is None:
        raise ApiError(404, "unknown_tag", "No tag has this name or id; admins add tags at /tags/.")
    return found


def _tagging(request, endpoint: str, session_id: str, body: TagChange, op: str):
    ep = common.endpoint(request, endpoint, REVIEWER, session_id)
    _write_key(request)
    tag = _tag(body.tag)
    refusal = protection.removal_refusal(request.user, tag) if op == tagging.REMOVE else None
    if refusal:
        raise ApiError(403, "keep_tag_admin_only", refusal)

    def perform():
        region.ensure_exists(ep, session_id)
        changed = tagging.change(ep, request.user, op, tag, [session_id])
        return idempotency.Result(
            Outcome.SUCCESS,
            http_status=200,
            result={
                "op": op,
                "id": tag.pk,
                "session_id": session_id,
                "count": len(changed.changed),
            },
        )

    inputs = {"tag": tag.pk, "session_id": session_id}
    return _replayed(request, f"api.tags_{op}", ep, inputs, perform, session_id)


@router.post("/e/{endpoint}/tags/{path:session_id}", summary="Add a tag to a session")
def tag_add(request, endpoint: str, session_id: str, body: TagChange):
    return _tagging(request, endpoint, session_id, body, tagging.ADD)


@router.delete("/e/{endpoint}/tags/{path:session_id}", summary="Remove a tag from a session")
def tag_remove(request, endpoint: str, session_id: str, body: TagChange):
    return _tagging(request, endpoint, session_id, body, tagging.REMOVE)


@router.post(
    "/e/{endpoint}/review/queues/{int:queue_id}/items", summary="Add sessions to a review queue"
)
def queue_add(request, endpoint: str, queue_id: int, body: QueueItems):
    """Sessions (or, with ``message_id``, one message of one session); each is added once."""
    ep = common.endpoint(request, endpoint, REVIEWER)
    _write_key(request)
    queue = queues.get(ep, queue_id)
    if not queues.workable(request.user, [queue]):
        raise PermissionDenied("This queue is assigned to other reviewers.")
    ids = list(dict.fromkeys(body.session_ids))
    if not ids or len(ids) > MAX_IDS:
        raise bad_request(f"session_ids: 1 to {MAX_IDS} ids.")
    if body.message_id is not None and (len(ids) != 1 or body.message_id < 0):
        raise bad_request("message_id: one session, and a message id of 0 or more.")
    try:
        for each in ids:
            check_path_id(each)
    except IdError as exc:
        raise bad_request(str(exc), "invalid_session_id") from None
    common.sessions(request, ep, ids, REVIEWER)

    def perform():
        added = items.add(request.user, ep, queue, ids, message_id=body.message_id, via="api")
        return idempotency.Result(
            Outcome.SUCCESS,
            http_status=200,
            result={"queue_id": queue.pk, "added": added, "already": len(ids) - added},
        )

    inputs = {"queue": queue.pk, "ids": ids, "message_id": body.message_id}
    return _replayed(
        request, "api.review_add", ep, inputs, perform, ids[0] if len(ids) == 1 else ""
    )


@router.post(
    "/e/{endpoint}/deletion/{path:session_id}",
    response={200: DeletionAsked, 201: DeletionAsked},
    summary="Request a deletion",
)
def deletion_ask(request, endpoint: str, session_id: str, body: DeletionAsk):
    """Files a request (or answers the open one); an admin other than you approves it
    (``deletions/{id}/approve``), in the browser or with their own token."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    _write_key(request)
    form = RequestForm({"reason": body.reason})
    if not form.is_valid():
        raise bad_request(" ".join(m for errors in form.errors.values() for m in errors))  # type: ignore[misc]
    reason = form.cleaned_data["reason"]

    def perform():
        made, created = deletion_request.create(ep, session_id, request.user, reason)
        return idempotency.Result(
            Outcome.SUCCESS,
            http_status=201 if created else 200,
            result={
                "request_id": made.pk,
                "created": created,
                "session_id": session_id,
                "state": made.status,
            },
        )

    inputs = {"reason": reason, "session_id": session_id}
    answer = _replayed(request, "api.deletion_request", ep, inputs, perform, session_id)
    # 201 when this request filed it; 200 when an open request already existed.
    return Status(201 if answer["created"] else 200, answer)
