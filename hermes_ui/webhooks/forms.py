"""The webhook form: URL, secret, events."""

import secrets

from django import forms

from hermes_ui.platform import events
from hermes_ui.webhooks import addresses


class WebhookForm(forms.Form):
    url = forms.URLField(
        max_length=500,
        label="Payload URL",
        assume_scheme="https",
        help_text="https, to a public address (checked again at every delivery; "
        "redirects are not followed).",
    )
    secret = forms.CharField(
        max_length=200,
        required=False,
        label="Secret",
        widget=forms.PasswordInput(render_value=False),
        help_text="Signs every body (X-Hermes-UI-Signature-256). Leave empty to keep the "
        "current one, or, for a new webhook, to have one generated and shown once.",
    )
    events = forms.MultipleChoiceField(
        choices=[(name, name) for name in events.PUBLIC],
        widget=forms.CheckboxSelectMultiple,
        label="Events",
    )
    active = forms.BooleanField(required=False, initial=True, label="Active")

    def clean_url(self):
        url = self.cleaned_data["url"]
        try:
            addresses.check_form(url)
        except addresses.Refused as refused:
            raise forms.ValidationError(str(refused)) from None
        return url

    def new_secret(self) -> str:
        return self.cleaned_data["secret"] or secrets.token_urlsafe(32)
