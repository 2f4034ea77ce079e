"""The audit trail's filter: the audit page's bar and the API's query string."""

from datetime import datetime, time

from django import forms
from django.db.models import Q
from django.utils import timezone

from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.platform.form_rendering import INLINE_FIELD_TEMPLATE, SeenValues


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
