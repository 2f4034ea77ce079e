"""The form that issues a token: its name, lifetime, scope and endpoints.

It is made for one person: the endpoints offered are those they may see, and the
longest lifetime is theirs (``tokens.max_days``: shorter for single sign-on people).
"""

from django import forms

from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.tokens import DEFAULT_DAYS, MAX_DAYS


class TokenForm(forms.Form):
    name = forms.CharField(
        max_length=100,
        strip=True,
        help_text="What the token is for, e.g. “nightly dataset job”.",
    )
    days = forms.IntegerField(
        label="Expires after (days)",
        min_value=1,
        max_value=MAX_DAYS,
        initial=DEFAULT_DAYS,
    )
    scope = forms.ChoiceField(
        choices=[("read", "Read"), ("write", "Read and write")],
        initial="read",
        widget=forms.RadioSelect,
    )
    endpoints = forms.MultipleChoiceField(
        label="Endpoints",
        required=False,
        widget=forms.CheckboxSelectMultiple,
        help_text="Tick none for every endpoint you may see; tick some to limit the token.",
    )

    def __init__(self, *args, user, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user
        self.limit = tokens.max_days(user)
        days = self.fields["days"]
        days.initial = min(DEFAULT_DAYS, self.limit)
        days.help_text = f"At most {self.limit} days."
        days.widget.attrs["max"] = self.limit
        self.fields["endpoints"].choices = [(ep, ep) for ep in tokens.reachable(user)]

    def clean_name(self):
        name = self.cleaned_data["name"]
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
            raise forms.ValidationError("The name cannot contain control characters.")
        return name

    def clean_days(self):
        days = self.cleaned_data["days"]
        refusal = tokens.too_long(self.user, days)
        if refusal:
            raise forms.ValidationError(refusal)
        return days
