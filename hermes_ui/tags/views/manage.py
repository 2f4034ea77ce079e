"""The managed list of tags at ``/tags/``: admins add, rename, recolour and delete tags.

A tag is one for every endpoint, so deleting or renaming it changes sessions of
all of them: instance administration (admin on ``*``), who sees every session.
"""

from django.contrib import messages
from django.db.models import Count
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.tags.forms import TagForm
from hermes_ui.tags.models import Tag
from hermes_ui.web.roles import instance_admin_required


@require_http_methods(["GET", "POST"])
@instance_admin_required
def tag_list(request: HttpRequest) -> HttpResponse:
    form = TagForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        tag = Tag.objects.create(**form.cleaned_data, created_by=request.user)  # type: ignore[misc]
        _audit(request.user, "tags.define", tag.pk)
        messages.success(request, f"Tag “{tag.name}” added.")
        return redirect("tag_list")
    return _page(request, form, status=400 if form.errors else 200)


@require_POST
@instance_admin_required
def tag_edit(request: HttpRequest, pk) -> HttpResponse:
    tag = get_object_or_404(Tag, pk=pk)
    form = TagForm(request.POST, instance=tag, auto_id=_ids(tag.pk))
    if not form.is_valid():
        return _page(request, TagForm(), edited=(tag.pk, form), status=400)
    Tag.objects.filter(pk=tag.pk).update(**form.cleaned_data)
    _audit(request.user, "tags.edit", tag.pk)
    messages.success(request, f"Tag “{form.cleaned_data['name']}” saved.")
    return redirect("tag_list")


@require_POST
@instance_admin_required
def tag_delete(request: HttpRequest, pk) -> HttpResponse:
    tag = get_object_or_404(Tag, pk=pk)
    count = tag.sessions.count()
    tag.delete()  # its session tags go with it
    _audit(request.user, "tags.delete", pk, count=count)
    messages.success(request, f"Tag “{tag.name}” deleted; it was on {count} session(s).")
    return redirect("tag_list")


def _page(request, form, *, edited=None, status=200):
    rows = []
    for tag in Tag.objects.annotate(uses=Count("sessions")):
        mine = edited[1] if edited and edited[0] == tag.pk else None
        rows.append((tag, mine or TagForm(instance=tag, auto_id=_ids(tag.pk))))
    return render(request, "tags/list.html", {"form": form, "rows": rows}, status=status)


def _ids(pk: int) -> str:
    """Field ids of one tag's own edit form (many on the page)."""
    return f"id_t{pk}_%s"


def _audit(user, capability: str, tag_id: int, **evidence) -> None:
    record(
        user,
        capability=capability,
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={"id": tag_id, **evidence},
    )
