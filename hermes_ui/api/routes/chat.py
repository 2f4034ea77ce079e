"""A chat turn: the page's streamed turn (admission, caps, the relay, durability), answered
as JSON once it ends, or as the page's Server-Sent Events (``?stream=1`` or
``Accept: text/event-stream``), which ``turn_events`` resumes with ``Last-Event-ID``.

The turn is the page's own record (``chat.models.Turn``), keyed by the request's
``Idempotency-Key`` as the page keys it by its form: a repeat answers the same turn,
never a second one. A turn still running when the wait ends, or whose outcome is
uncertain, is a 202 with the ``Location`` of its outcome.
"""

from __future__ import annotations

from django.conf import settings
from django.http import Http404, HttpResponse, StreamingHttpResponse
from django.urls import reverse
from ninja import Router, Schema, Status

from hermes_ui.api.document import Comment, HeaderText, Text
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common, keys
from hermes_ui.api.routes.changes import Pending, form_errors, pending
from hermes_ui.chat import access, frames, relay, store, turn_streams
from hermes_ui.chat.admission import CAP_REFUSALS, admit
from hermes_ui.chat.audit import record_refusal
from hermes_ui.chat.compose import ChatForm, refusal_of
from hermes_ui.chat.models import Turn, TurnState
from hermes_ui.chat.views.stream import last_event_id
from hermes_ui.hermes import client_for
from hermes_ui.web.roles import SUPPORT

router = Router(tags=["chat"])
MODE = "stream"  # the page's streamed turn, whichever way the API answers
# A turn not over after this long answers 202 (it goes on; its outcome is polled).
WAIT_SLACK_SECONDS = 5.0
UNFINISHED = (
    "The turn has not ended as far as the dashboard knows: it may still be running, or "
    "Hermes may have finished it without the dashboard hearing. Poll the Location."
)


class ChatBody(Schema):
    message: Comment
    system_message: Text | None = None
    session_key: HeaderText | None = None  # sent to Hermes as a header


class Reply(Schema):
    role: str
    content: str


class TurnOut(Schema):
    turn_id: int
    session_id: str
    requested_session_id: str
    state: str
    reply: Reply
    usage: dict | None = None
    durability: dict | None = None
    replayed: bool


SSE = {"text/event-stream": {"schema": {"type": "string"}}}
# Where a client that lost the stream resumes it (with Last-Event-ID).
RESUME = {
    "Content-Location": {
        "description": "The turn's events route (turn_events), to resume with Last-Event-ID",
        "schema": {"type": "string"},
    },
    "X-Turn-Id": {"description": "The turn's id", "schema": {"type": "integer"}},
}


def wants_stream(request, stream: bool) -> bool:
    return stream or "text/event-stream" in request.headers.get("Accept", "")


@router.post(
    "/e/{endpoint}/chat/{path:session_id}",
    response={200: TurnOut, 202: Pending},
    summary="Send a chat turn",
    operation_id="chat_turn",
    openapi_extra={"responses": {200: {"content": SSE, "headers": RESUME}}},
)
def chat_turn(
    request,
    response: HttpResponse,
    endpoint: str,
    session_id: str,
    body: ChatBody,
    stream: bool = False,
):
    """The turn as JSON once it ends (``reply`` is the assistant's answer), or, with
    ``?stream=1`` or ``Accept: text/event-stream``, the page's events as they come."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    claim = keys.claim(request, "chat_turn", ep, body.dict(), session_id)
    form = ChatForm(
        {
            "message": body.message,
            "system_message": body.system_message or "",
            "session_key": body.session_key or "",
            "form_key": claim.key,
        }
    )
    if not form.is_valid():
        claim.release()
        raise bad_request(form_errors(form), "invalid_input")
    turn, replayed = _start(request, ep, session_id, form, claim)
    if wants_stream(request, stream):
        answer = events_response(turn.pk, None, request.user)
        answer["X-Turn-Id"] = str(turn.pk)
        answer["Content-Location"] = reverse(
            "api_v1:turn_events", kwargs={"endpoint": ep.id, "turn_id": turn.pk}
        )
        return answer
    if not replayed:
        relay.wait(turn.pk, settings.HERMES_STREAM_TIMEOUT + WAIT_SLACK_SECONDS)
    turn = store.settle_if_orphaned(Turn.objects.get(pk=turn.pk))
    if turn.state != TurnState.COMPLETED:
        return pending(claim, response, UNFINISHED, turn_id=turn.pk)
    return Status(200, turn_out(turn, replayed or not claim.fresh))


def _start(request, ep, session_id: str, form, claim: keys.Claim) -> tuple[Turn, bool]:
    """Admit the turn as the page does and hand it to the relay; refusals as errors."""
    admission = admit(ep, session_id, form, request.user, MODE)
    if admission.error is not None:
        claim.release()
        raise admission.error
    if admission.refusal:
        record_refusal(
            request.user,
            endpoint_id=ep.id,
            session_id=session_id,
            code=admission.refusal,
            mode=MODE,
        )
        claim.release()
        status = 429 if admission.refusal in CAP_REFUSALS else 409
        raise ApiError(status, admission.refusal, admission.message)
    turn = admission.turn
    assert turn is not None
    try:
        refusal = (
            refusal_of(turn)
            if admission.replayed
            else relay.send(turn, client_for(ep), request.user)
        )
    except turn_streams.LeaseError:
        code = store.NO_LEASE_CODE
        record_refusal(request.user, endpoint_id=ep.id, session_id=session_id, code=code, mode=MODE)
        claim.release()
        raise ApiError(503, code, store.NO_LEASE) from None
    claim.done({"turn_id": turn.pk})
    if refusal is not None:  # Hermes refused the turn before anything ran
        given = refusal.status or 0
        status = given if 400 <= given < 500 else 400
        raise ApiError(status, refusal.code or "bad_request", refusal.message)
    return turn, admission.replayed


def turn_out(turn: Turn, replayed: bool) -> dict:
    usage = None
    if turn.total_tokens is not None:
        usage = {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "total_tokens": turn.total_tokens,
        }
    return {
        "turn_id": turn.pk,
        "session_id": turn.effective_session_id or turn.target_session_id,
        "requested_session_id": turn.requested_session_id,
        "state": turn.state,
        "reply": {"role": "assistant", "content": turn.answer},
        "usage": usage,
        "durability": turn.durability or None,
        "replayed": replayed,
    }


def events_response(turn_id: int, after: int | None, user) -> StreamingHttpResponse:
    """The page's event stream of the turn (``chat.frames``): every event has an ``id:``."""
    answer = StreamingHttpResponse(
        frames.stream(turn_id, after, "", viewer=user), content_type="text/event-stream"
    )
    answer["Cache-Control"] = "no-cache"
    answer["X-Accel-Buffering"] = "no"
    return answer


@router.get(
    "/e/{endpoint}/turns/{int:turn_id}/events",
    summary="Follow a turn's events (resume with Last-Event-ID)",
    operation_id="turn_events",
    openapi_extra={"responses": {200: {"description": "The turn's events", "content": SSE}}},
)
def turn_events(request, endpoint: str, turn_id: int):
    """What came after ``Last-Event-ID`` (or ``?after=``), then the live turn until it
    ends; without a cursor, the turn so far, then live."""
    ep = common.endpoint(request, endpoint, SUPPORT)
    turn = Turn.objects.filter(**ep.scope(), pk=turn_id).first()
    if turn is None or not access.may_read(turn, request.user):  # hidden: as a missing one
        raise Http404("No such chat turn on this endpoint.")
    try:
        after = last_event_id(request)
    except ValueError as exc:
        raise bad_request(str(exc), "bad_cursor") from None
    return events_response(turn.pk, after, request.user)
