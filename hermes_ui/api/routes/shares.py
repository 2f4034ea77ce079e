"""Share links: create, list and revoke with a token (``write`` scope and an
``Idempotency-Key`` for the writes, as ``writes.py``). Approving an outside link stays
in the browser, with a second admin. The link itself is in the creating answer only:
the replay of a repeated request, like the database, holds no token."""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.urls import reverse
from ninja import Field, Router, Schema
from ninja.responses import Status

from hermes_ui.access.rules import access_of
from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common
from hermes_ui.api.routes.writes import _replayed
from hermes_ui.audit import idempotency
from hermes_ui.audit.models import Outcome
from hermes_ui.hermes import client_for
from hermes_ui.shares import links, snapshot
from hermes_ui.shares.models import KINDS, Share, live_q
from hermes_ui.web.roles import SUPPORT

router = Router(tags=["shares"])
LIST_LIMIT = 500


class ShareAsk(Schema):
    # The form's rules, declared for clients and checked after the door, as the other
    # writes' bodies (hermes_ui.api.document): default 7 days.
    kind: str = Field("inside", json_schema_extra={"enum": ["inside", "outside"]})
    days: int | None = Field(
        None, json_schema_extra={"minimum": 1, "maximum": settings.HERMES_UI_SHARE_MAX_DAYS}
    )
    max_views: int | None = Field(
        None, json_schema_extra={"minimum": 1, "maximum": links.MAX_VIEWS}
    )
    lineage: bool = False  # also the lineage's ids and masked titles, from the index


def _out(share: Share) -> dict:
    return {
        "share_id": share.pk,
        "endpoint": share.endpoint,
        "session_id": share.session_id,
        "kind": share.kind,
        "state": share.state(),
        "created_by": share.created_by_name,
        "created_at": share.created_at.isoformat(timespec="seconds"),
        "expires_at": share.expires_at.isoformat(timespec="seconds"),
        "views": share.views,
        "max_views": share.max_views,
        "masked": share.masked,
    }


@router.post(
    "/e/{endpoint}/shares/{path:session_id}",
    response={201: dict},
    summary="Share a session's snapshot",
)
def share_create(request, endpoint: str, session_id: str, body: ShareAsk):
    """A masked snapshot taken now; the answer holds the link (``url``) this once. An
    outside link opens only after an admin other than you approves it in the browser."""
    ep = common.endpoint(request, endpoint, SUPPORT, session_id)
    days = links.default_days() if body.days is None else body.days
    if body.kind not in dict(KINDS):
        raise bad_request("kind: inside or outside.")
    made: dict = {}

    def perform():
        whose = (ep, request.user) if body.lineage else None
        snap = snapshot.take(client_for(ep), session_id, lineage_for=whose)
        try:
            share, token = links.create(
                ep,
                session_id,
                request.user,
                snap,
                kind=body.kind,
                days=days,
                max_views=body.max_views,
            )
        except links.Refused as refused:
            code = "bad_request" if refused.status == 400 else "sharing_off"
            return idempotency.Result(
                Outcome.REFUSED, http_status=refused.status, error_code=code, message=str(refused)
            )
        made["url"] = request.build_absolute_uri(reverse("share_open", kwargs={"token": token}))
        made["share"] = out = _out(share)
        return idempotency.Result(Outcome.SUCCESS, http_status=201, result=out, evidence=out)

    inputs = {
        "session_id": session_id,
        "kind": body.kind,
        "days": days,
        "max": body.max_views,
        "lineage": body.lineage,
    }
    answer = _replayed(request, "api.share_create", ep, inputs, perform, session_id)
    # A replay answers what was recorded (ids, kind, state, expiry) and no link.
    return Status(201, {**answer, **made.get("share", {}), "url": made.get("url")})


@router.get("/shares", summary="Live share links")
def share_list(request):
    """Yours, and every one of the sessions you are admin of (as ``/shares/``)."""
    if not access_of(request.user).has_somewhere(SUPPORT):
        raise ApiError(403, "forbidden", "This needs the support role.")
    links.purge_ended()
    rows = links.visible_to(request.user).filter(live_q()).order_by("-created_at", "-id")
    return {"data": [_out(share) for share in rows[:LIST_LIMIT]]}


@router.post("/shares/{int:share_id}/revoke", summary="Revoke a share link")
def share_revoke(request, share_id: int):
    share = links.reachable(request.user, share_id)
    if share is None:
        raise Http404("No such share link.")
    ep = common.endpoint(request, share.endpoint, SUPPORT)
    if not links.may_revoke(request.user, share):
        raise PermissionDenied("Only the sharer or an admin of this session's endpoint revokes it.")

    def perform():
        done = links.revoke(share, request.user)
        share.refresh_from_db()
        out = {"share_id": share.pk, "state": share.state(), "count": int(done)}
        return idempotency.Result(Outcome.SUCCESS, http_status=200, result=out, evidence=out)

    inputs = {"share": share.pk}
    return _replayed(request, "api.share_revoke", ep, inputs, perform, share.session_id)
