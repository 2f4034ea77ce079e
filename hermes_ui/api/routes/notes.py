"""A note on a session or one of its messages, and a reviewer's labels on a queue item:
the session page's note form (``review.notes``) and the review page's rubric form
(``review.labelling``), with their roles, checks and audit events."""

from __future__ import annotations

from datetime import datetime

from django.http import Http404
from ninja import Field, Router, Schema, Status

from hermes_ui.api.document import Comment
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common, keys
from hermes_ui.api.routes.changes import form_errors
from hermes_ui.review import item_page, items, labelling, note_marks, notes, queues
from hermes_ui.review.models import Item, Note, Review
from hermes_ui.review.thread_page import note_target
from hermes_ui.web.roles import REVIEWER, SUPPORT

router = Router(tags=["review"])
MAX_SHOWN = 2000  # message ids one rubric form may label, as on the page


class NoteBody(Schema):
    text: Comment
    message_id: int | None = Field(None, json_schema_extra={"minimum": 0})


class NoteOut(Schema):
    note_id: int
    session_id: str
    message_id: int | None = None
    created_at: datetime
    replayed: bool


class LabelsBody(Schema):
    """The review page's form: ``labels`` by field name (``s-<key>`` for the session's
    fields, ``m<message id>-<key>`` for a message's), ``shown`` the message ids the
    labels cover, ``complete`` for "Complete" rather than "Save"."""

    labels: dict[str, str | int | bool | None] = {}
    shown: list[int] = []
    complete: bool = False


class LabelsOut(Schema):
    item_id: int
    review_id: int
    state: str
    complete: bool
    count: int
    replayed: bool


def _note_out(note: Note, replayed: bool) -> dict:
    return {
        "note_id": note.pk,
        "session_id": note.session_id,
        "message_id": note.message_id,
        "created_at": note.created_at,
        "replayed": replayed,
    }


@router.post(
    "/e/{endpoint}/notes/{path:session_id}",
    response={201: NoteOut},
    summary="Add a note to a session or one of its messages",
    operation_id="note_add",
)
def note_add(request, endpoint: str, session_id: str, body: NoteBody):
    """Plain text; ``@username`` mentions a colleague (one who may see the session)."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    claim = keys.claim(request, "note_add", ep, body.dict(), session_id)
    if not claim.fresh:
        return Status(201, _note_out(_made(claim, Note, "note_id", **ep.scope()), True))
    form = note_marks.note_form({"body": body.text, "message": body.message_id}, body.message_id)
    if not form.is_valid():
        claim.release()
        raise bad_request(form_errors(form))
    try:
        target = note_target(ep, session_id, body.message_id)
        if target is None:
            raise ApiError(404, "message_not_found", "This session has no such message.")
        note = notes.add(ep, request.user, target, body.message_id, form.cleaned_data["body"])
    except notes.Unseeing as refused:
        claim.release()
        raise bad_request(str(refused), "mention_refused") from None
    except Exception:
        claim.release()
        raise
    claim.done({"note_id": note.pk})
    return Status(201, _note_out(note, False))


def _made(claim: keys.Claim, model, name: str, **scope):
    """What the first request with this key made; a 409 while it is still being made."""
    found = model.objects.filter(pk=claim.pointer.get(name), **scope).first()
    if found is None:
        raise ApiError(
            409, "in_progress", "The first request with this key has not finished; try again."
        )
    return found


@router.post(
    "/e/{endpoint}/review/items/{int:item_id}/labels",
    response={200: LabelsOut},
    summary="Save (or complete) your labels of a review item",
    operation_id="review_labels",
)
def review_labels(request, endpoint: str, item_id: int, body: LabelsBody):
    ep = common.endpoint(request, endpoint, REVIEWER)
    queue_id = (
        Item.objects.filter(pk=item_id, **ep.scope()).values_list("queue_id", flat=True).first()
    )
    if queue_id is None:
        raise Http404("No such review item on this endpoint.")
    queue = queues.get(ep, queue_id)
    item = items.visible(request.user, ep, queue, item_id)
    queues.require_work(request.user, queue)
    claim = keys.claim(request, "review_labels", ep, body.dict(), item.session_id)
    if not claim.fresh:
        review = _made(claim, Review, "review_id", item=item)
        item.refresh_from_db()
        return _labels_out(item, review, body, 0, True)
    own = labelling.own_review(item, request.user)
    version = labelling.version_for(item, own)
    try:
        ids = item_page.posted_ids(ep, item, body.shown[:MAX_SHOWN])
    except Exception:
        claim.release()
        raise
    data = {name: "" if value is None else str(value) for name, value in body.labels.items()}
    form = labelling.LabelForm(version, ids, data)
    if not form.is_valid():
        claim.release()
        raise bad_request(form_errors(form))
    try:
        review = labelling.save(
            request.user, ep, queue, item, version, form, own, complete=body.complete
        )
    except labelling.Refused as refused:
        labelling.refused(request.user, ep, item, body.complete)
        claim.release()
        raise ApiError(409, "not_yours", str(refused)) from None
    claim.done({"review_id": review.pk})
    item.refresh_from_db()
    return _labels_out(item, review, body, len(form.labels()), False)


def _labels_out(item: Item, review: Review, body: LabelsBody, count: int, replayed: bool):
    if replayed:
        count = review.labels.count()
    return {
        "item_id": item.pk,
        "review_id": review.pk,
        "state": item.state,
        "complete": body.complete,
        "count": count,
        "replayed": replayed,
    }
