"""The form that issues a token."""

from django import forms

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
        help_text=f"At most {MAX_DAYS} days.",
    )
    scope = forms.ChoiceField(
        choices=[("read", "Read"), ("write", "Read and write")],
        initial="read",
        widget=forms.RadioSelect,
    )

    def clean_name(self):
        name = self.cleaned_data["name"]
        if any(ord(ch) < 32 or ord(ch) == 127 for ch in name):
            raise forms.ValidationError("The name cannot contain control characters.")
        return name
