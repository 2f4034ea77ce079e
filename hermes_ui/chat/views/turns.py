"""Chat turns: send one (streamed with htmx, a background job without JS), show it, cancel it."""

from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from hermes_ui.background.jobs.respond import started
from hermes_ui.chat import access, box, relay, store, sync_job, turn_streams
from hermes_ui.chat.admission import CAP_REFUSALS, admit
from hermes_ui.chat.audit import record_refusal
from hermes_ui.chat.compose import ChatForm, refusal_of
from hermes_ui.chat.models import Turn
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.endpoints import Endpoint, get_endpoint
from hermes_ui.web import links
from hermes_ui.web.errors import unavailable
from hermes_ui.web.failures import error_context
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required


@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
@role_required(SUPPORT)
def session_chat(request: HtmxHttpRequest, endpoint, session_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    if request.method == "GET":
        # The chat form on a page of its own (the no-JavaScript fallback's home).
        return _box(request, ep, session_id)
    form = ChatForm(request.POST)
    if not form.is_valid():
        return _box(request, ep, session_id, form=form, status=400)
    mode = "stream" if request.htmx else "sync"
    admission = admit(ep, session_id, form, request.user, mode)
    if admission.error is not None or admission.refusal:
        return _not_started(request, ep, session_id, form, admission, mode)
    turn = admission.turn
    if mode == "sync" and not admission.replayed:
        return _plain(request, ep, session_id, form, turn)  # type: ignore[arg-type]
    running = sync_job.running(turn) if admission.replayed else None  # type: ignore[arg-type]
    if running is not None:
        return started(request, running)  # the same form again: its turn is still being sent
    # A replay shows what the first submission got; only a new turn is sent.
    try:
        refusal = refusal_of(turn) if admission.replayed else _stream(request, ep, turn)  # type: ignore[arg-type]
    except turn_streams.LeaseError:
        return _not_sent(request, ep, session_id, form, turn, mode)  # type: ignore[arg-type]
    if refusal is not None:
        form.add_hermes_error(refusal)
        return _box(request, ep, session_id, form=form, status=400)
    if request.htmx:
        return _box(request, ep, session_id, turn=turn)
    return redirect(links.session_url(ep.id, turn.target_session_id) + "#chat")  # type: ignore[union-attr]


def _plain(request, ep, session_id, form, turn: Turn):
    """Without JavaScript: the turn is sent by a background job; its progress page at once."""
    try:
        store.claim(turn.pk)  # Redis cannot record who sends it: nothing is queued
    except turn_streams.LeaseError:
        return _not_sent(request, ep, session_id, form, turn, "sync")
    return started(request, sync_job.start(turn, request.user))


def _not_started(request, ep, session_id, form, admission, mode):
    """Hermes could not be read, the session is closed, or a turn is already running."""
    if admission.error is not None:
        status = error_context(admission.error)["error_status"]
        return _box(request, ep, session_id, form=form, error=admission.error, status=status)
    record_refusal(
        request.user, endpoint_id=ep.id, session_id=session_id, code=admission.refusal, mode=mode
    )
    notice = {"level": "warn", "code": admission.refusal, "text": admission.message}
    status = 429 if admission.refusal in CAP_REFUSALS else 409
    return _box(
        request, ep, session_id, form=form, turn=admission.turn, notice=notice, status=status
    )


def _not_sent(request, ep, session_id, form, turn: Turn, mode: str):
    """Redis could not record the turn's lease: nothing went to Hermes (the turn is failed)."""
    code = store.NO_LEASE_CODE
    record_refusal(request.user, endpoint_id=ep.id, session_id=session_id, code=code, mode=mode)
    turn.refresh_from_db()
    notice = {"level": "error", "code": code, "text": store.NO_LEASE}
    return _box(request, ep, session_id, form=form, turn=turn, notice=notice, status=503)


def _stream(request, ep, turn: Turn) -> HermesError | None:
    """Start the streamed turn; the provider's refusal when it rejected it outright."""
    return relay.send(turn, client_for(ep), request.user)


def _box(request, ep, session_id, *, status=200, **kwargs):
    data = box.context(request, ep, session_id, **kwargs)
    template = "chat/box.html#box" if request.htmx else "chat/form_page.html"
    return render(request, template, data, status=status)


@require_GET
@role_required(SUPPORT)
def turn_page(request: HtmxHttpRequest, endpoint, turn_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    turn = _turn(ep, turn_id, request.user)
    view = store.view_of(turn)
    return render(request, "chat/turn.html", {"endpoint": ep, "turn": view})


@require_POST
@role_required(SUPPORT)
def turn_cancel(request: HtmxHttpRequest, endpoint, turn_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    turn = _turn(ep, turn_id, request.user)
    # 403, not 404: every support user may read the turn (see hermes_ui.chat.access),
    # so hiding that it exists would hide nothing; stopping it is its sender's.
    if not access.may_cancel(turn, request.user):
        raise PermissionDenied("Only the person who sent this turn, or an admin, may cancel it.")
    try:
        relay.cancel(turn.pk, request.user)
    except turn_streams.LeaseError:
        return unavailable(request, CANCEL_NOT_PASSED_ON)
    if request.htmx:
        return HttpResponse(status=204)  # the turn's stream shows the new state
    relay.wait(turn.pk, 5.0)
    return redirect("chat_turn", endpoint=ep.id, turn_id=turn.pk)


CANCEL_NOT_PASSED_ON = (
    "Another worker of the dashboard runs this turn, and the cancel could not be passed on "
    "to it because Redis does not answer. The turn goes on; try again in a moment."
)


def _turn(ep: Endpoint, turn_id: int, user) -> Turn:
    turn = Turn.objects.select_related("user").filter(**ep.scope(), pk=turn_id).first()
    if turn is None or not access.may_read(turn, user):  # hidden: as a missing one
        raise Http404("No such chat turn on this endpoint.")
    return store.settle_if_orphaned(turn)
