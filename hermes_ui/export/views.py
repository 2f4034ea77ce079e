"""Download a session, or its whole lineage, as JSON, Markdown or HTML."""

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from hermes_ui.access.rules import access_of, forget
from hermes_ui.export import download, members, record
from hermes_ui.export.formats import WRITERS, ExportDoc
from hermes_ui.export.forms import ExportQuery
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.platform.redaction import Redactor
from hermes_ui.web import download_limits as limits
from hermes_ui.web import masking
from hermes_ui.web import streaming as stream
from hermes_ui.web.errors import too_many
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.roles import SUPPORT, role_required


@require_GET
async def session_export(request: HttpRequest, endpoint, session_id) -> HttpResponse:
    """Async, so the ASGI handler streams the download without holding a page thread
    (see ``hermes_ui.asgi``); the reads before it run in one thread step."""
    return await sync_to_async(_prepare)(request, endpoint, session_id)


@role_required(SUPPORT)
def _prepare(request, endpoint, session_id):
    ep = get_endpoint(endpoint)
    query = ExportQuery(request.GET)
    if not query.is_valid():
        return bad_id(request, ep, query.reason())
    try:
        slot = limits.acquire(request.user)  # held until the download ends
    except limits.Busy as busy:
        return too_many(request, busy.message)
    with slot:
        return _export(request, ep, session_id, query, slot)


def _export(request, ep, session_id, query, slot):
    fmt, lineage = query.cleaned_data["format"], query.cleaned_data["lineage"]
    # Support staff never take an unredacted copy away, whatever the URL says.
    redacted = masking.masked(request.user, query.cleaned_data["redact"])
    client = client_for(ep)
    try:
        check_path_id(session_id)
        plan = members.plan(client, ep, session_id, lineage=lineage, user=request.user)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    except HermesError as error:
        return error_page(request, error, ep)
    redactor = Redactor(redacted)
    doc = ExportDoc(
        endpoint=ep.id,
        session_id=session_id,
        exported_by=request.user.get_username(),
        lineage=lineage,
        redactor=redactor,
        notes=plan.notes,
        sessions=members.sessions(client, plan, redactor, _still_allowed(request.user, ep.id)),
    )
    facts = {
        "session_id": session_id,
        "format": fmt,
        "redacted": redacted,
        "lineage": lineage,
        "sessions": len(plan.ids),
    }
    finish = record.start(request.user, ep, session_id, facts, redactor)
    writer = WRITERS[fmt]
    chunks = slot.stream(stream.hashed(writer.body(doc), writer.trailer, finish))
    return download.attachment(request, writer, chunks, session_id=session_id, lineage=lineage)


def _still_allowed(user, endpoint_id: str):
    """Asked before each member is read while the download streams: the person's
    grants are read afresh, so one taken away meanwhile stops the rest."""

    def allowed(source: str) -> bool:
        forget(user)
        return access_of(user).sees(endpoint_id, source)

    return allowed
