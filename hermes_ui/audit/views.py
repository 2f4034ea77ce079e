"""The audit trail (admins): every change, approval and deletion, filterable and paged."""

from datetime import datetime, time

from django import forms
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Q
from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.platform.form_rendering import INLINE_FIELD_TEMPLATE, SeenValues
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN, role_required

PAGE_SIZE = 50


def _select(element_id: str):
    return SeenValues({"id": element_id})


class AuditFilter(forms.Form):
    """The audit page's query string and its filter bar (ids ``f-…``: tests and links)."""

    field_template_name = INLINE_FIELD_TEMPLATE

    user = forms.CharField(required=False, max_length=150, widget=_select("f-user"))
    capability = forms.CharField(required=False, max_length=60, widget=_select("f-cap"))
    endpoint = forms.CharField(required=False, max_length=40, widget=_select("f-ep"))
    outcome = forms.ChoiceField(
        required=False,
        choices=[("", "Any outcome"), *Outcome.choices],
        widget=forms.Select({"id": "f-outcome"}),
    )
    session = forms.CharField(
        required=False,
        max_length=300,
        label="Session id",
        widget=forms.TextInput({"id": "f-session", "size": 24}),
    )
    since = forms.DateField(
        required=False, label="From", widget=forms.DateInput({"type": "date", "id": "f-since"})
    )
    until = forms.DateField(
        required=False, label="To", widget=forms.DateInput({"type": "date", "id": "f-until"})
    )
    page = forms.IntegerField(required=False, min_value=1)

    def offer(self, *, usernames, capabilities, endpoints_seen) -> None:
        """The values the drop-downs offer: those seen in the trail."""
        for name, anything, values in (
            ("user", "Anyone", usernames),
            ("capability", "Any", capabilities),
            ("endpoint", "Any", endpoints_seen),
        ):
            self.fields[name].widget.choices = [("", anything), *((v, v) for v in values)]


@require_GET
@vary_on_headers("HX-Request")
@role_required(ADMIN)
def audit_log(request: HtmxHttpRequest) -> HttpResponse:
    query = AuditFilter(request.GET)
    template = "changes/audit_log.html#results" if request.htmx else "changes/audit_log.html"
    query.offer(**_choices())
    context = {"query": query}
    if not query.is_valid():
        return render(request, template, context, status=400)
    page = Paginator(filtered(query.cleaned_data), PAGE_SIZE).get_page(
        query.cleaned_data["page"] or 1
    )
    params = request.GET.copy()
    params.pop("page", None)
    context.update(page=page, events=page.object_list, params=params.urlencode())  # type: ignore[call-overload]
    return render(request, template, context)


def filtered(data: dict):
    events = AuditEvent.objects.all()
    if data["user"]:
        events = events.filter(username=data["user"])
    for name in ("capability", "endpoint", "outcome"):
        if data[name]:
            events = events.filter(**{name: data[name]})
    if data["session"]:
        # A fork is filed under its parent; its child is found by its id too.
        events = events.filter(
            Q(session_id=data["session"]) | Q(evidence__child_id=data["session"])
        )
    zone = timezone.get_current_timezone()
    if data["since"]:
        events = events.filter(at__gte=datetime.combine(data["since"], time.min, zone))
    if data["until"]:
        events = events.filter(at__lte=datetime.combine(data["until"], time.max, zone))
    return events.select_related("user")


def _choices() -> dict:
    """Values seen in the trail, for the filter's drop-downs."""

    def distinct(name):
        return set(AuditEvent.objects.order_by().values_list(name, flat=True).distinct())

    users = set(get_user_model().objects.values_list("username", flat=True))
    return {
        "capabilities": sorted(distinct("capability")),
        "endpoints_seen": sorted(distinct("endpoint")),
        "usernames": sorted(distinct("username") | users),
    }
