"""/access/: who has what, and the forms to give and take roles (instance admins only).

Every change goes through ``access.grants`` or ``access.ending``, which audit
it with the acting admin. Plain forms that post and redirect: no JavaScript
needed. Bad input answers the page again with the form's errors (400).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from hermes_ui.access import grants, overview
from hermes_ui.access.ending import end_sessions
from hermes_ui.access.forms import GrantChoice, GrantForm, PersonChoice
from hermes_ui.access.models import ALL, Grant, IdpGroup, Origin
from hermes_ui.web.roles import instance_admin_required

PAGE_SIZE = 25
_SELF_STAR = (
    "You cannot change your own role on every endpoint (*) here: ask another instance "
    "admin, or use manage.py grant on the server."
)


@require_GET
@instance_admin_required
def access_page(request: HttpRequest) -> HttpResponse:
    return _page(request, GrantForm())


def _page(request, form: GrantForm, *, status: int = 200) -> HttpResponse:
    query = (request.GET.get("q") or "").strip()[:150]
    people = get_user_model().objects.order_by("username")
    if query:
        people = people.filter(username__icontains=query)
    page = Paginator(overview.people_queryset(people), PAGE_SIZE).get_page(request.GET.get("page"))
    rows = [
        {
            "person": person,
            "own": person.pk == request.user.pk,  # no revoke button on one's own * grant
            "lines": overview.lines_of(person),
            "groups": overview.groups_of(person),
            "effective": overview.effective(person),
        }
        for person in page.object_list
    ]
    context = {
        "form": form,
        "query": query,
        "page": page,
        "people": rows,
        "groups": overview.group_rows(),
        "settings_label": overview.SETTINGS_LABEL,
        "params": urlencode({"q": query}) if query else "",
    }
    return render(request, "access/page.html", context, status=status)


def _back(person=None) -> HttpResponse:
    url = reverse("access_page")
    if person is not None:
        url += "?" + urlencode({"q": person.get_username()})
    return redirect(url)


@require_POST
@instance_admin_required
def grant_view(request: HttpRequest) -> HttpResponse:
    form = GrantForm(request.POST)
    if not form.is_valid():
        return _page(request, form, status=400)
    data = form.cleaned_data
    person, group_name = data["person"], data["group"]
    if person is not None and person.pk == request.user.pk and data["endpoint"] == ALL:
        form.add_error(None, _SELF_STAR)
        return _page(request, form, status=400)
    group = IdpGroup.objects.get_or_create(name=group_name)[0] if group_name else None
    try:
        made = grants.grant(
            data["endpoint"],
            data["role"],
            data["sources"],
            user=person,
            group=group,
            by=request.user,
            origin=Origin.LOCAL,
        )
    except ValidationError as exc:
        form.add_error(None, exc)
        return _page(request, form, status=400)
    holder = person.get_username() if person is not None else f"group {group_name}"
    messages.success(request, f"{holder} now has {made.role} on {made.endpoint}" + _limit(made))
    return _back(person)


def _limit(grant: Grant) -> str:
    return f" (sources: {', '.join(grant.sources)})." if grant.sources else "."


@require_POST
@instance_admin_required
def revoke_view(request: HttpRequest) -> HttpResponse:
    choice = GrantChoice(request.POST)
    if not choice.is_valid():
        messages.error(request, _first_error(choice, "grant", "Choose a grant to revoke."))
        return _back()
    grant = choice.cleaned_data["grant"]
    if grant.user_id is not None and grant.user_id == request.user.pk and grant.endpoint == ALL:
        messages.error(request, _SELF_STAR)
        return _back(grant.user)
    taken = grants.revoke(grant.endpoint, user=grant.user, group=grant.group, by=request.user)
    holder = grant.user.get_username() if grant.user else f"group {grant.group.name}"
    note = ""
    if grant.origin != Origin.LOCAL:
        note = (
            f" It came from {grant.get_origin_display()}: the identity provider gives it back "
            "at the next sign-in or sync unless it is changed there."
        )
    messages.success(
        request,
        f"{holder} no longer has a role on {grant.endpoint} "
        f"({taken} grant{'s' if taken != 1 else ''} revoked).{note}",
    )
    return _back(grant.user)


@require_POST
@instance_admin_required
def end_sessions_view(request: HttpRequest) -> HttpResponse:
    choice = PersonChoice(request.POST)
    if not choice.is_valid():
        messages.error(request, _first_error(choice, "user", "Choose a person."))
        return _back()
    person = choice.cleaned_data["user"]
    end_sessions(person, reason="ended by an admin on the access page", by=request.user)
    messages.success(
        request,
        f"Every dashboard session of {person.get_username()} ends at its next request.",
    )
    return _back(person)


def _first_error(form, field: str, otherwise: str) -> str:
    errors = form.errors.get(field)
    return " ".join(str(error) for error in errors) if errors else otherwise
