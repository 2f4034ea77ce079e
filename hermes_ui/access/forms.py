"""The /access/ page's forms: give a role to a person or a group, revoke one, end sessions.

Endpoint, role and sources are checked by ``access.grants.clean`` (the same
check as ``manage.py grant``); a form only turns its message into a field error.
"""

from __future__ import annotations

import re

from django import forms
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError

from hermes_ui.access import grants
from hermes_ui.access.models import ALL, ROLES, SUPPORT, Grant


def endpoint_choices() -> list[tuple[str, str]]:
    return [(ALL, "* (every endpoint)")] + [
        (ep, f"{ep} ({endpoint.display})") if endpoint.display != ep else (ep, ep)
        for ep, endpoint in settings.HERMES_ENDPOINTS.items()
    ]


def split_sources(raw: str) -> list[str]:
    """``"telegram, cron"`` or ``"telegram cron"`` -> ``["telegram", "cron"]``."""
    return [part for part in re.split(r"[,\s]+", raw or "") if part]


def find_person(name: str):
    """The account named ``name`` (its username), or a ValidationError saying there is none."""
    user = get_user_model().objects.filter(username=(name or "").strip()).first()
    if user is None:
        raise ValidationError(f"There is no account {name.strip()[:150]!r}.")
    return user


def check_group_name(name: str) -> str:
    name = (name or "").strip()
    if not name or len(name) > 200 or not name.isprintable():
        raise ValidationError(
            "Give the group as the identity provider names it (200 characters at most)."
        )
    return name


class GrantForm(forms.Form):
    person = forms.CharField(
        label="Person (username)",
        required=False,
        max_length=150,
        help_text="Give either a person or a group.",
    )
    group = forms.CharField(
        label="Or a group from the identity provider",
        required=False,
        max_length=200,
        help_text="As the provider names it (SSO groups claim or SCIM); a new name creates it.",
    )
    endpoint = forms.CharField(label="Endpoint", widget=forms.Select)
    role = forms.CharField(
        label="Role", initial=SUPPORT, widget=forms.Select(choices=[(r, r) for r in ROLES])
    )
    sources = forms.CharField(
        label="Only these sources",
        required=False,
        max_length=2000,
        help_text="Hermes source names, comma-separated (telegram, cron, …). Empty: every source.",
    )

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["endpoint"].widget.choices = endpoint_choices()

    def clean_person(self):
        name = self.cleaned_data["person"].strip()
        return find_person(name) if name else None

    def clean_group(self):
        name = self.cleaned_data["group"].strip()
        return check_group_name(name) if name else ""

    def clean_endpoint(self):
        endpoint, _, _ = grants.clean(self.cleaned_data["endpoint"], SUPPORT)
        return endpoint

    def clean_role(self):
        _, role, _ = grants.clean(ALL, self.cleaned_data["role"])
        return role

    def clean_sources(self):
        _, _, sources = grants.clean(ALL, SUPPORT, split_sources(self.cleaned_data["sources"]))
        return sources

    def clean(self):
        data = super().clean()
        person, group = data.get("person"), data.get("group")
        if "person" in data and "group" in data and bool(person) == bool(group):
            raise ValidationError("Give either a person or a group, not both and not neither.")
        return data


class GrantChoice(forms.Form):
    """A stored grant, named by its id (a revoke button)."""

    grant = forms.IntegerField(min_value=1)

    def clean_grant(self):
        found = Grant.objects.select_related("user", "group").filter(pk=self.cleaned_data["grant"])
        grant = found.first()
        if grant is None:
            raise ValidationError("That grant no longer exists.")
        return grant


class PersonChoice(forms.Form):
    """A person, named by their id (the "end sessions" button)."""

    user = forms.IntegerField(min_value=1)

    def clean_user(self):
        user = get_user_model().objects.filter(pk=self.cleaned_data["user"]).first()
        if user is None:
            raise ValidationError("That account no longer exists.")
        return user
