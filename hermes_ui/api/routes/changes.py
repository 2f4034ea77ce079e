"""Create, rename or close, and fork a session: the pages' changes (``changes.perform``).

The body is cleaned by the page's own form, the change runs through the page's
replay boundary with the request's ``Idempotency-Key`` as the form's key, and it
writes the page's audit event. An answer Hermes did not give (a timeout, a lost
connection after sending) is a 202 whose ``Location`` is the key's outcome
(``outcomes.outcome_get``): it is reconciled by reading Hermes, never sent again.
"""

from __future__ import annotations

from django.http import HttpResponse
from django.urls import reverse
from ninja import Router, Schema, Status

from hermes_ui.api.document import Line, Text
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common, keys, sessions
from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply, perform
from hermes_ui.changes.forms import (
    COMMON_REASONS,
    OTHER,
    CloseForm,
    CreateForm,
    ForkForm,
    RenameForm,
)
from hermes_ui.hermes import client_for
from hermes_ui.platform.redaction import Redactor, session_row
from hermes_ui.web.roles import REVIEWER, SUPPORT

router = Router(tags=["changes"])
# The create and the patch share their paths with the reads of ``sessions``: one router
# per path, or the first router's methods would hide the others (405).
_same_paths = sessions.router
TAGS = ["changes"]
_REASONS = {value for value, _ in COMMON_REASONS}


class SessionOut(Schema):
    """A session as Hermes returned it after the change (its title masked for support)."""

    id: str
    title: str | None = None
    parent_session_id: str | None = None
    source: str | None = None
    model: str | None = None
    end_reason: str | None = None
    message_count: int | None = None
    started_at: float | None = None
    ended_at: float | None = None
    archived: bool | None = None
    pinned: bool | None = None
    masked: bool
    replayed: bool
    event_id: int | None = None


class Pending(Schema):
    """An uncertain outcome: poll ``location`` (also the ``Location`` header)."""

    state: str
    message: str
    location: str
    event_id: int | None = None
    turn_id: int | None = None
    request_id: int | None = None


class CreateBody(Schema):
    title: Text | None = None
    session_id: Text | None = None
    model: Text | None = None
    system_prompt: Text | None = None


class PatchBody(Schema):
    title: Text | None = None
    end_reason: Line | None = None


class ForkBody(Schema):
    title: Text | None = None
    child_id: Text | None = None


def form_errors(form) -> str:
    return " ".join(f"{name}: {m}" for name, errors in form.errors.items() for m in errors)


def cleaned(form) -> dict:
    if not form.is_valid():
        raise bad_request(form_errors(form))
    return form.cleaned_data


def outcome_url(key: str) -> str:
    return reverse("api_v1:outcome_get", kwargs={"key": key})


def pending(claim: keys.Claim, response: HttpResponse, message: str, **ids):
    """202 with ``Location``: the outcome is not known, and is not guessed."""
    claim.done(ids, Outcome.UNCERTAIN)
    url = outcome_url(claim.sent)
    response["Location"] = url
    return Status(202, {"state": "uncertain", "message": message, "location": url, **ids})


def _answer(request, response, ep, claim: keys.Claim, applied: apply.Applied, made_id):
    result = applied.result
    # A replay answers with the first request's event, not the replay's own.
    ids = {"event_id": claim.pointer.get("event_id") or result.event_id}
    if result.outcome in {Outcome.UNCERTAIN, Outcome.RUNNING}:
        return pending(claim, response, apply.UNCERTAIN_WORDS, **ids)
    if result.outcome != Outcome.SUCCESS:
        claim.done(ids, result.outcome)
        raise ApiError(
            apply.status_for(applied),
            result.error_code or result.outcome,
            applied.provider_message or result.message or "Hermes refused the change.",
        )
    session = applied.session
    if session is None:  # a replay: the first answer is recorded, the session read now
        session = client_for(ep).get_session(made_id or "")
    claim.done({**ids, "session_id": session.id})
    redactor = Redactor(common.masked(request, False, ep))
    row = session_row(redactor, session.as_row())
    fields = {name: row.get(name) for name in SessionOut.model_fields if name in row}
    status = 200 if result.http_status == 200 else 201
    body = {
        **fields,
        "id": session.id,
        "masked": redactor.enabled,
        "replayed": applied.replayed or not claim.fresh,
        "event_id": ids["event_id"],
    }
    return Status(status, body)


@_same_paths.post(
    "/e/{endpoint}/sessions",
    tags=TAGS,
    response={201: SessionOut, 202: Pending},
    summary="Create a session",
    operation_id="create_session",
)
def create_session(request, response: HttpResponse, endpoint: str, body: CreateBody):
    """As the New session page: an optional id, title, model and system prompt (stored by
    Hermes, never shown back or recorded)."""
    ep = common.endpoint(request, endpoint, REVIEWER)
    key = keys.personal(keys.write_key(request), request.user)
    fields = {
        "session_id": body.session_id or "",
        "title": body.title or "",
        "model": body.model or "",
        "system_prompt": body.system_prompt or "",
    }
    data = cleaned(CreateForm({"key": key, **fields}))
    made = apply.submission_key(key, perform.create_inputs(data), data["session_id"] or "")
    claim = keys.checked(request, apply.CREATE, ep, made)
    applied = perform.create(ep, request.user, data)
    return _answer(request, response, ep, claim, applied, applied.evidence.get("session_id"))


@_same_paths.patch(
    "/e/{endpoint}/session/{path:session_id}",
    tags=TAGS,
    response={200: SessionOut, 202: Pending},
    summary="Rename or close a session",
    operation_id="patch_session",
)
def patch_session(request, response: HttpResponse, endpoint: str, session_id: str, body: PatchBody):
    """One of ``title`` (an empty or null title removes it) or ``end_reason`` (closing is
    final: the first reason stays)."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    given = body.model_fields_set & {"title", "end_reason"}
    if len(given) != 1:
        keys.write_key(request)
        raise bad_request("Send exactly one of title or end_reason.")
    key = keys.personal(keys.write_key(request), request.user)
    form: RenameForm | CloseForm
    if "title" in given:
        op, form = "rename", RenameForm({"key": key, "title": body.title or ""})
    else:
        reason = body.end_reason or ""
        choice = {"reason": reason} if reason in _REASONS else {"reason": OTHER, "other": reason}
        op, form = "close", CloseForm({"key": key, **choice})
    data = cleaned(form)
    fields = {"title": data["title"]} if op == "rename" else {"end_reason": data["end_reason"]}
    made = apply.submission_key(key, perform.patch_inputs(op, fields), session_id)
    claim = keys.checked(request, apply.PATCH, ep, made)
    applied = perform.patch(ep, request.user, session_id, op, claim.key, fields)
    return _answer(request, response, ep, claim, applied, session_id)


@router.post(
    "/e/{endpoint}/fork/{path:session_id}",
    response={201: SessionOut, 202: Pending},
    summary="Fork a session",
    operation_id="fork_session",
)
def fork_session(request, response: HttpResponse, endpoint: str, session_id: str, body: ForkBody):
    """A child holding a copy of the session's active messages; the answer is the child,
    with ``parent_session_id``."""
    ep = common.endpoint(request, endpoint, REVIEWER, session_id)
    key = keys.personal(keys.write_key(request), request.user)
    data = cleaned(
        ForkForm({"key": key, "child_id": body.child_id or "", "title": body.title or ""})
    )
    made = apply.submission_key(key, perform.fork_inputs(data), session_id)
    claim = keys.checked(request, apply.FORK, ep, made)
    applied = perform.fork(ep, request.user, session_id, data)
    return _answer(request, response, ep, claim, applied, applied.evidence.get("child_id"))
