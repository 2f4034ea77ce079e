"""Asking for a deletion: any role, with a reason; the snapshot is taken on submit."""

from django.contrib import messages
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django_htmx.http import HttpResponseClientRedirect

from hermes_ui.access import scope
from hermes_ui.deletion import request as deletion_request
from hermes_ui.deletion.forms import RequestForm
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.observed import facts
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web.failures import bad_id, error_context, error_page
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required


@require_http_methods(["GET", "POST"])
@role_required(SUPPORT)
def deletion_new(request: HtmxHttpRequest, endpoint) -> HttpResponse:
    """The request form (GET) and its submission (POST), for the session in ``?session=``."""
    ep = get_endpoint(endpoint)
    session_id = request.POST.get("session") or request.GET.get("session") or ""
    try:
        check_path_id(session_id)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    # The session named in the query, not the URL: the door did not see it (a 404 for
    # a session of a source this person may not see, as for one Hermes does not have).
    scope.check(request, endpoint, session_id)
    existing = deletion_request.open_request(ep, session_id)
    if existing is not None:
        messages.info(request, f"Deletion request #{existing.pk} for this session is in progress.")
        return _to_case(request, existing.pk)
    form = RequestForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            made, _ = deletion_request.create(
                ep, session_id, request.user, form.cleaned_data["reason"]
            )
        except HermesError as error:
            if not request.htmx:
                return error_page(request, error, ep)
            # The form shows the failure in place, with the failure's status.
            return _form(request, ep, session_id, form, error_context(error, ep))
        messages.success(
            request, f"Deletion request #{made.pk} recorded; an admin will approve or reject it."
        )
        return _to_case(request, made.pk)
    return _form(request, ep, session_id, form)


def _to_case(request, pk: int):
    url = reverse("deletion_detail", kwargs={"pk": pk})
    # An htmx form swaps its own block; a new page needs a client-side redirect.
    return HttpResponseClientRedirect(url) if request.htmx else redirect(url)


def _form(request, ep, session_id: str, form, failure: dict | None = None):
    lost = None
    try:
        session = client_for(ep).get_session(session_id)
    except e.NotFound as error:
        # Deleted elsewhere: the form asks to erase the dashboard's own copies.
        lost = deletion_request.lost_case(ep, session_id)
        if lost is None:
            return error_page(request, error, ep)
        session = None
    except HermesError as error:
        return error_page(request, error, ep)
    context = {
        "endpoint": ep,
        "session": session,
        "session_id": session_id,
        "form": form,
        "held": lost[0]["local_copies"] if lost else None,
        "lost_delegates": len(lost[1]["cascade"]) if lost else 0,
        "cascade_warning": facts.cascade_seen_failing(ep),
        **(failure or {}),
    }
    status = 400 if form.errors else 200
    if failure:
        status = failure["error_status"]
    return render(request, "deletion/new.html", context, status=status)
