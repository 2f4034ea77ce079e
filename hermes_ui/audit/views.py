"""The audit trail (admins): every change, approval and deletion, filterable and paged."""

from datetime import datetime, time

from django import forms
from django.contrib.auth import get_user_model
from django.core.paginator import Paginator
from django.db.models import Q
from django.shortcuts import render
from django.utils import timezone
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.web.roles import ADMIN, role_required

PAGE_SIZE = 50


class AuditFilter(forms.Form):
    user = forms.CharField(required=False, max_length=150)
    capability = forms.CharField(required=False, max_length=60)
    endpoint = forms.CharField(required=False, max_length=40)
    session = forms.CharField(required=False, max_length=300, label="Session id")
    outcome = forms.ChoiceField(required=False, choices=[("", "Any outcome"), *Outcome.choices])
    since = forms.DateField(required=False, label="From", widget=forms.DateInput({"type": "date"}))
    until = forms.DateField(required=False, label="To", widget=forms.DateInput({"type": "date"}))
    page = forms.IntegerField(required=False, min_value=1)


@require_GET
@vary_on_headers("HX-Request")
@role_required(ADMIN)
def audit_log(request):
    query = AuditFilter(request.GET)
    template = "changes/audit_log.html#results" if request.htmx else "changes/audit_log.html"
    context = {"query": query, **_choices()}
    if not query.is_valid():
        return render(request, template, context, status=400)
    page = Paginator(_filtered(query.cleaned_data), PAGE_SIZE).get_page(
        query.cleaned_data["page"] or 1
    )
    params = request.GET.copy()
    params.pop("page", None)
    context.update(page=page, events=page.object_list, params=params.urlencode())
    return render(request, template, context)


def _filtered(data: dict):
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
