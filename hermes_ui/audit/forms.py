"""The audit trail's filter: the audit page's bar and the API's query string."""

from datetime import datetime, time

from django import forms
from django.db.models import Q
from django.utils import timezone

from hermes_ui.access.models import ADMIN
from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.index.models import IndexedSession
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


def visible(user):
    """The entries ``user`` may read: the one rule (``access.rules``) applied to the trail.

    An instance admin (admin on ``*``) reads everything. Anyone else reads the
    entries of endpoints where they are admin, and their own instance-level
    entries (no endpoint: sign-ins, access changes, tokens); other instance-level
    entries are instance administration. On an endpoint where their admin role is
    limited to some sources, an entry naming a session is shown only when the
    index holds that session with one of those sources (so the entries of a
    session erased from the index are hidden from them); entries naming no
    session (the endpoint as a whole) are shown.
    """
    events = AuditEvent.objects.all()
    access = access_of(user)
    if access.instance_admin:
        return events
    shown = Q(endpoint="", user=user)
    somewhere = access.endpoint_ids(ADMIN)
    whole = [ep for ep in somewhere if access.has(ADMIN, ep)]
    if whole:
        shown |= Q(endpoint__in=whole)
    for ep in somewhere:
        if ep in whole:
            continue
        sessions = (
            IndexedSession.objects.filter(access.session_q(ADMIN))
            .filter(endpoint=ep)
            .values("session_id")
        )
        shown |= Q(endpoint=ep) & (Q(session_id="") | Q(session_id__in=sessions))
    return events.filter(shown)


def filtered(data: dict, user):
    """The entries ``user`` may read (``visible``) that match the filter ``data``."""
    events = visible(user)
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
