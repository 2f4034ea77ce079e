"""Save the index page's current search as a view."""

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.saved_views import catalogue, changes
from hermes_ui.saved_views.forms import SaveViewForm
from hermes_ui.saved_views.models import SavedView
from hermes_ui.web.roles import SUPPORT, role_required


@require_POST
@role_required(SUPPORT)
def view_save(request: HttpRequest, endpoint) -> HttpResponse:
    """A valid search becomes a view and opens; mistakes come back as form errors."""
    ep = get_endpoint(endpoint)
    form = SaveViewForm(request.POST, owner=request.user)
    valid = form.is_valid()
    if valid and form.cleaned_data["shared"] and not changes.may_share(request.user):
        form.add_error("shared", "Only reviewers and admins share views; save it for yourself.")
        valid = False
    if not valid:
        context = {"endpoint": ep, "form": form}
        return render(request, "saved_views/save.html", context, status=400)
    row = SavedView.objects.create(owner=request.user, **form.cleaned_data)  # type: ignore[misc]
    changes.audit(request.user, "views.save", ep.id, row.pk, kind=_kind(row))
    return redirect(catalogue.of_saved(row, request.user).url(ep.id))


def _kind(row: SavedView) -> str:
    return "shared" if row.shared else "personal"
