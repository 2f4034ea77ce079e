"""The chat box on a session page: the latest turn from here and the form for the next."""

from __future__ import annotations

from django.conf import settings
from django.db.models import Q

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.chat import store
from hermes_ui.chat.admission import closed_text as closed_reason
from hermes_ui.chat.compose import ChatForm
from hermes_ui.chat.models import Turn
from hermes_ui.endpoint_status.capabilities import STREAMING, last_probe, offers, reports
from hermes_ui.hermes import Session
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.prepared import Prepared
from hermes_ui.web import links
from hermes_ui.web.failures import error_context
from hermes_ui.web.roles import SUPPORT, has_role

_OPTIONAL_FIELDS = ("system_message", "session_key", "image_urls")
SESSION_KEY_HEADER = "session_key_header"  # /v1/capabilities names the memory-scope header


# Its id first, compiled once (platform.prepared): most sessions were never chatted
# with from here, and the id alone is a much cheaper query than the turn with its user.
_LATEST_ID = Prepared(
    lambda ep, fp, ids: (
        Turn.objects.filter(endpoint=ep, endpoint_fp=fp, rejected=False)
        .filter(
            Q(requested_session_id__in=ids)
            | Q(target_session_id__in=ids)
            | Q(effective_session_id__in=ids)
        )
        .values_list("pk")[:1]
    )
)


def latest_turn(endpoint: Endpoint, session_ids: set[str]) -> Turn | None:
    """The newest turn sent from here on any of these ids (refusals by Hermes left out)."""
    ids = sorted(s for s in session_ids if s)
    found = _LATEST_ID.first(endpoint.id, endpoint.fingerprint, ids) if ids else None
    if found is None:
        return None
    turn = Turn.objects.select_related("user").filter(pk=found[0]).first()
    return store.settle_if_orphaned(turn) if turn is not None else None


def context(
    request,
    endpoint,
    session_id: str,
    *,
    form: ChatForm | None = None,
    notice: dict | None = None,
    error=None,
    **where,
) -> dict:
    """The whole box: ``state()`` and the form for the next turn (``where``: its
    ``resolved_id``, ``session``, ``turn`` and ``live_tip``)."""
    data = with_form(state(request, endpoint, session_id, **where), form)
    data["notice"] = notice
    if error is not None:
        data.update(error_context(error, endpoint))
    return data


def with_form(data: dict, form: ChatForm | None = None) -> dict:
    """``state()`` with the form for the next turn (a new one: its own idempotency key)."""
    form = form or ChatForm(initial={"form_key": mint_key()})
    return {
        **data,
        "form": form,
        "notice": None,
        "error": None,
        "options_open": any(name in form.errors for name in _OPTIONAL_FIELDS),
    }


def state(
    request,
    endpoint,
    session_id: str,
    *,
    resolved_id: str | None = None,
    session: Session | None = None,
    turn: Turn | None = None,
    live_tip: str | None = None,
) -> dict:
    """What the box shows without its form: the latest turn from here, where the next
    one goes (``post_url``, also the form's own page) and whether it can be sent. The
    session page shows this much and opens the form on demand.

    ``live_tip``: a compressed session's tip Hermes' own read did not resolve
    (hermes-agent 0.15); turns are then posted to the tip itself."""
    if live_tip:
        resolved_id = live_tip
    resolved_id = resolved_id or session_id
    if session is None or not session.compressed:
        resolved_id = session_id  # see admission.admit: only compression moves a turn
    if turn is None:
        turn = latest_turn(endpoint, {session_id, resolved_id})
    view = store.view_of(turn) if turn is not None else None
    post_to = view.next_session_id if view is not None and view.rotated else session_id
    if live_tip and post_to == session_id:
        post_to = live_tip
    closed_text = ""
    closed = session is not None and session.closed
    if closed and resolved_id == session_id and not settings.HERMES_ALLOW_CHAT_ON_CLOSED:
        closed_text = closed_reason(session.end_reason)  # type: ignore[union-attr]
    target_note = ""
    if resolved_id != session_id:
        target_note = (
            f"Turns go to the compression tip {resolved_id}, where this transcript continues."
        )
    probe = last_probe(endpoint)  # both capability questions from one read
    return {
        "endpoint": endpoint,
        "session_id": session_id,
        "turn": view,
        "busy": bool(view and view.running),
        "post_url": links.session_url(endpoint.id, post_to, "session_chat"),
        "can_chat": has_role(request.user, SUPPORT, endpoint.id),
        # Gated on the capability the endpoint last reported, never on its version.
        "streaming": offers(endpoint, STREAMING, probe),
        "session_key_offered": reports(endpoint, SESSION_KEY_HEADER, probe),
        "closed_text": closed_text,
        "target_note": target_note,
    }
