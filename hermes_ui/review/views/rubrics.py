"""Rubrics, for admins: the list, a new rubric, and editing one (which saves a new version)."""

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods

from hermes_ui.review import rubrics
from hermes_ui.review.forms import FieldSet, RubricForm, field_initial
from hermes_ui.review.models import Rubric
from hermes_ui.web.roles import ADMIN, role_required


@require_GET
@role_required(ADMIN)
def rubric_list(request: HttpRequest) -> HttpResponse:
    listed = Rubric.objects.prefetch_related("versions").order_by("name")
    rows = [(r, rubrics.current(r)) for r in listed]
    return render(request, "review/rubrics.html", {"rows": rows})


def _editor(request, rubric, initial_fields):
    if request.method == "POST":
        return RubricForm(request.POST, rubric=rubric), FieldSet(request.POST, prefix="f")
    head = {"name": rubric.name, "description": rubric.description} if rubric else {}
    return RubricForm(initial=head, rubric=rubric), FieldSet(initial=initial_fields, prefix="f")


def _save(request, rubric: Rubric | None, form, fieldset):
    created = rubric is None
    with transaction.atomic():
        rubric = rubric or Rubric(created_by=request.user)
        rubric.name = form.cleaned_data["name"]
        rubric.description = form.cleaned_data["description"]
        rubric.save()
        version = rubrics.save(request.user, rubric, fieldset.fields(), created=created)
    messages.success(request, f"Saved “{rubric.name}” as version {version.number}.")
    return redirect("review_rubric", rubric_id=rubric.pk)


@require_http_methods(["GET", "POST"])
@role_required(ADMIN)
def rubric_new(request: HttpRequest) -> HttpResponse:
    form, fieldset = _editor(request, None, [])
    if request.method == "POST" and form.is_valid() and fieldset.is_valid():
        return _save(request, None, form, fieldset)
    status = 400 if request.method == "POST" else 200
    return render(
        request, "review/rubric.html", {"form": form, "fieldset": fieldset}, status=status
    )


@require_http_methods(["GET", "POST"])
@role_required(ADMIN)
def rubric_edit(request: HttpRequest, rubric_id) -> HttpResponse:
    rubric = get_object_or_404(Rubric, pk=rubric_id)
    version = rubrics.current(rubric)
    form, fieldset = _editor(request, rubric, field_initial(version.fields if version else []))
    if request.method == "POST" and form.is_valid() and fieldset.is_valid():
        return _save(request, rubric, form, fieldset)
    context = {
        "form": form,
        "fieldset": fieldset,
        "rubric": rubric,
        "version": version,
        "versions": rubric.versions.order_by("-number"),
    }
    return render(
        request, "review/rubric.html", context, status=400 if request.method == "POST" else 200
    )
