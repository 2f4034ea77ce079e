"""The views page: rename, share or delete your views, delete shared ones (admins),
and pick the view the index opens with."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.saved_views import catalogue, changes
from hermes_ui.saved_views.forms import DefaultForm, NameForm
from hermes_ui.saved_views.models import DefaultView
from hermes_ui.web.roles import ADMIN, SUPPORT, has_role, role_required


@require_GET
@role_required(SUPPORT)
def view_list(request: HttpRequest, endpoint) -> HttpResponse:
    return _page(request, get_endpoint(endpoint))


@require_POST
@role_required(SUPPORT)
def view_edit(request: HttpRequest, endpoint, pk) -> HttpResponse:
    ep = get_endpoint(endpoint)
    row = changes.own(request.user, pk)
    form = NameForm(request.POST, owner=request.user, instance=row, auto_id=_ids(row.pk))
    if form.is_valid() and form.cleaned_data["shared"] and not changes.may_share(request.user):
        form.add_error("shared", "Only reviewers and admins share views.")
    if form.errors:
        return _page(request, ep, edited=(row.pk, form), status=400)
    row.name, row.shared = form.cleaned_data["name"], form.cleaned_data["shared"]
    row.save(update_fields=["name", "shared", "updated_at"])
    changes.audit(
        request.user, "views.edit", ep.id, row.pk, kind="shared" if row.shared else "personal"
    )
    messages.success(request, f"View “{row.name}” saved.")
    return redirect("view_list", endpoint=ep.id)


@require_POST
@role_required(SUPPORT)
def view_delete(request: HttpRequest, endpoint, pk) -> HttpResponse:
    ep = get_endpoint(endpoint)
    row = changes.deletable(request.user, pk)
    row.delete()
    DefaultView.objects.filter(key=f"view:{pk}").delete()  # whoever opened with it
    changes.audit(
        request.user, "views.delete", ep.id, pk, kind="shared" if row.shared else "personal"
    )
    messages.success(request, f"View “{row.name}” deleted.")
    return redirect("view_list", endpoint=ep.id)


@require_POST
@role_required(SUPPORT)
def view_default(request: HttpRequest, endpoint) -> HttpResponse:
    """``key``: a view the user sees, or ``all`` (every session, no default)."""
    ep = get_endpoint(endpoint)
    form = DefaultForm(request.POST)
    key = form.cleaned_data["key"] if form.is_valid() else ""
    if key != catalogue.ALL and catalogue.find(request.user, key) is None:
        messages.error(request, "That view does not exist, or is not one you can see.")
        return _page(request, ep, status=400)
    DefaultView.objects.update_or_create(user=request.user, defaults={"key": key})  # type: ignore[misc]
    changes.audit(request.user, "views.default", ep.id, None, kind=key)
    messages.success(request, "The index now opens with this view.")
    return redirect("view_list", endpoint=ep.id)


def _page(request, ep, *, edited=None, status=200):
    views = catalogue.visible(request.user)
    forms = {
        v.saved.pk: NameForm(
            owner=request.user,
            instance=v.saved,
            auto_id=_ids(v.saved.pk),
            initial={"name": v.name, "shared": v.shared},
        )
        for v in views
        if v.saved is not None and not v.owner
    }
    if edited:
        forms[edited[0]] = edited[1]
    context = {
        "endpoint": ep,
        "views": [(v, forms.get(v.saved.pk) if v.saved else None) for v in views],
        "default_key": catalogue.default_key(request.user) or catalogue.ALL,
        "is_admin": has_role(request.user, ADMIN),
        "may_share": changes.may_share(request.user),
    }
    return render(request, "saved_views/list.html", context, status=status)


def _ids(pk: int) -> str:
    """Field ids of one view's own form (many on the page)."""
    return f"id_v{pk}_%s"
