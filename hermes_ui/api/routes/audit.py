"""GET /audit (admins): the audit trail, filtered as on the audit page, cursor-paged.

Only what the audit page shows them (``audit.forms.visible``): entries of endpoints
where they are an admin (of a source-limited endpoint, those of no session or of a
session of their sources), and instance-level entries for instance admins (their
own to everyone).
"""

from typing import Literal

from django.core.exceptions import PermissionDenied
from ninja import Query, Router

from hermes_ui.access.rules import ADMIN, access_of
from hermes_ui.api import paging
from hermes_ui.api.document import IsoDate
from hermes_ui.api.errors import bad_request
from hermes_ui.audit.forms import AuditFilter, filtered

router = Router(tags=["audit"])
PAGE = 100


@router.get("/audit", summary="The audit trail (admins)")
def audit_events(
    request,
    user: str = Query("", max_length=150),
    capability: str = Query("", max_length=60),
    endpoint: str = Query("", max_length=40),
    outcome: Literal["", "success", "rejected", "uncertain", "refused", "running"] = "",
    session: str = Query("", max_length=300),
    since: IsoDate | None = None,
    until: IsoDate | None = None,
    cursor: str = "",
):
    access = access_of(request.user)
    if not access.has_somewhere(ADMIN):
        raise PermissionDenied(f"This needs the {ADMIN} role.")
    form = AuditFilter(
        {
            "user": user,
            "capability": capability,
            "endpoint": endpoint,
            "outcome": outcome,
            "session": session,
            "since": since,
            "until": until,
        }
    )
    if not form.is_valid():
        raise bad_request(_reason(form))
    events = filtered(form.cleaned_data, request.user).order_by("-pk")
    before = paging.decode(cursor).get("before")
    if before is not None:
        if not isinstance(before, int):
            raise bad_request("This cursor is damaged; start from the first page.", "bad_cursor")
        events = events.filter(pk__lt=before)
    found = list(events[: PAGE + 1])
    more = len(found) > PAGE
    found = found[:PAGE]
    return {
        "data": [_event(each) for each in found],
        "next_cursor": paging.encode({"before": found[-1].pk}) if more else None,
    }


def _event(event) -> dict:
    return {
        "id": event.pk,
        "at": event.at.isoformat(),
        "username": event.username,
        "capability": event.capability,
        "endpoint": event.endpoint,
        "session_id": event.session_id or None,
        "outcome": event.outcome,
        "http_status": event.http_status,
        "error_code": event.error_code or None,
        "evidence": event.evidence,
    }


def _reason(form) -> str:
    return " ".join(f"{name}: {m}" for name, errors in form.errors.items() for m in errors)
