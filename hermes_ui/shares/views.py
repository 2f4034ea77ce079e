"""The share pages: the form with its masked preview, the list, approve and revoke."""

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from hermes_ui.access import scope
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.shares import links, snapshot
from hermes_ui.shares.forms import ShareForm
from hermes_ui.shares.models import Share, live_q
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.roles import SUPPORT, role_required

LIST_LIMIT = 500


@require_http_methods(["GET", "POST"])
@role_required(SUPPORT)
def share_new(request, endpoint, session_id) -> HttpResponse:
    """The form and the masked preview (GET), and the new link (POST), of one session."""
    ep = get_endpoint(endpoint)
    try:
        check_path_id(session_id)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    # A dot id comes in the query string (``?id=``), past the door: asked here.
    scope.check(request, endpoint, session_id)
    kinds = links.allowed_kinds()
    context = {"endpoint": ep, "session_id": session_id, "off": not kinds}
    context["outside"] = len(kinds) > 1
    if context["off"]:
        return render(request, "shares/new.html", context, status=403)
    asked = request.POST if request.method == "POST" else request.GET
    lineage = asked.get("lineage", "") in ("1", "on", "true")
    try:
        snap = snapshot.take(
            client_for(ep), session_id, lineage_for=(ep, request.user) if lineage else None
        )
    except HermesError as error:
        return error_page(request, error, ep)
    form = ShareForm(request.POST or None, initial={"preview": snap.digest, "lineage": lineage})
    status = 200
    if request.method == "POST":
        made, form, status = _submit(request, ep, session_id, snap, form, context)
        if made is not None:
            return made
    context.update(form=form, snap=snap, shown=snapshot.shown(snap.body), lineage=lineage)
    return render(request, "shares/new.html", context, status=status)


def _submit(request, ep, session_id: str, snap, form, context: dict):
    """(the made page, None, 200), or (None, the form to show again, its status)."""
    if not form.is_valid():
        return None, form, 400
    data = form.cleaned_data
    if data["preview"] != snap.digest:
        context["changed"] = True
        return None, ShareForm(initial={**data, "preview": snap.digest}), 409
    try:
        share, token = links.create(
            ep,
            session_id,
            request.user,
            snap,
            kind=data["kind"],
            days=data["days"],
            max_views=data["max_views"],
        )
    except links.Refused as refused:
        form.add_error(None, str(refused))
        return None, form, refused.status
    return _made(request, share, token), None, 200


def _made(request, share: Share, token: str) -> HttpResponse:
    url = request.build_absolute_uri(reverse("share_open", kwargs={"token": token}))
    response = render(request, "shares/made.html", {"share": share, "url": url})
    response["Cache-Control"] = "no-store"  # the page holds the link's only copy
    return response


@require_GET
@role_required(SUPPORT)
def share_list(request) -> HttpResponse:
    """Live links: an admin's of every session they administer, everyone's own."""
    links.purge_ended()
    rows = list(
        links.visible_to(request.user)
        .filter(live_q())
        .select_related("approved_by")
        .order_by("-created_at", "-id")[:LIST_LIMIT]
    )
    for row in rows:
        row.can_approve = row.pending and links.may_approve(request.user, row)
    context = {"rows": rows, "limit": LIST_LIMIT, "kinds": links.allowed_kinds()}
    return render(request, "shares/list.html", context)


@require_POST
@role_required(SUPPORT)
def share_approve(request, pk: int) -> HttpResponse:
    share = _visible(request, pk)
    try:
        links.approve(share, request.user)
    except links.Refused as refused:
        return _refused(request, refused)
    messages.success(request, f"Share link #{share.pk} approved: it opens for anyone with it.")
    return redirect("share_list")


@require_POST
@role_required(SUPPORT)
def share_revoke(request, pk: int) -> HttpResponse:
    share = _visible(request, pk)
    try:
        done = links.revoke(share, request.user)
    except links.Refused as refused:
        return _refused(request, refused)
    if done:
        messages.success(request, f"Share link #{share.pk} revoked: it no longer opens.")
    else:
        messages.info(request, f"Share link #{share.pk} was already revoked.")
    return redirect("share_list")


def _visible(request, pk: int) -> Share:
    """The share, if this person may see its session; else the 404 of no share at all."""
    share = links.reachable(request.user, pk)
    if share is None:
        raise Http404("No such share link.")
    return share


def _refused(request, refused: links.Refused) -> HttpResponse:
    context = {"reason": str(refused)}
    return render(request, "shares/refused.html", context, status=refused.status)
