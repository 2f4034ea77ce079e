"""The share form: kind, days and an optional view limit; bad input is a message, never a 500."""

from django import forms
from django.core.validators import MaxValueValidator

from hermes_ui.shares import links
from hermes_ui.shares.models import KINDS


class ShareForm(forms.Form):
    kind = forms.ChoiceField(label="Who may open it", widget=forms.RadioSelect)
    days = forms.IntegerField(label="Expires after (days)", min_value=1)
    max_views = forms.IntegerField(
        label="At most this many views",
        required=False,
        min_value=1,
        max_value=links.MAX_VIEWS,
        help_text="Optional. Empty: as many as happen before it expires.",
    )
    lineage = forms.BooleanField(
        label="Also share its lineage",
        required=False,
        help_text="The ids and masked titles of the sessions around it that you may see, "
        "from the index; never their messages.",
    )
    # The digest of the preview the person saw: a POST that finds another snapshot
    # (the session changed meanwhile) shows the new preview instead of sharing it.
    preview = forms.CharField(widget=forms.HiddenInput, required=False, max_length=64)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        allowed = links.allowed_kinds()
        self.fields["kind"].choices = [(k, label) for k, label in KINDS if k in allowed]
        self.fields["kind"].initial = allowed[0] if allowed else None
        days = self.fields["days"]
        days.validators.append(MaxValueValidator(links.max_days()))
        days.initial = links.default_days()
        days.help_text = f"1 to {links.max_days()} days."
        days.widget.attrs.update(min=1, max=links.max_days())
