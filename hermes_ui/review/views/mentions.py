"""The mentions page: notes that name the current user, across endpoints; marking them read."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from hermes_ui.review import mentions
from hermes_ui.review.note_forms import MarkReadForm
from hermes_ui.web.roles import SUPPORT, role_required

TEMPLATE = "review/mentions.html"


@require_GET
@role_required(SUPPORT)
def mention_list(request: HttpRequest) -> HttpResponse:
    rows = mentions.rows(request.user)
    unread = sum(1 for row in rows if row.mention.read_at is None)
    return render(request, TEMPLATE, {"rows": rows, "unread": unread})


@require_POST
@role_required(SUPPORT)
def mentions_read(request: HttpRequest) -> HttpResponse:
    """Mark one mention (``mention``) or all (``all``) of the user's own read."""
    form = MarkReadForm(request.POST)
    if not form.is_valid():
        rows = mentions.rows(request.user)
        unread = sum(1 for row in rows if row.mention.read_at is None)
        context = {"rows": rows, "unread": unread, "read_form": form}
        return render(request, TEMPLATE, context, status=400)
    one = form.cleaned_data["mention"]
    marked = mentions.mark_read(request.user, None if form.cleaned_data["all"] else [one])
    messages.success(request, f"{marked} mention{'s' if marked != 1 else ''} marked read.")
    return redirect(reverse("mentions"))
