"""The preferences form: one choice per kind."""

from django import forms

from hermes_ui.notifications.kinds import KINDS
from hermes_ui.notifications.models import MODES


class PreferencesForm(forms.Form):
    def __init__(self, *args, modes: dict[str, str], **kwargs):
        super().__init__(*args, **kwargs)
        for key, kind in KINDS.items():
            self.fields[key] = forms.ChoiceField(
                choices=MODES,
                initial=modes[key],
                label=kind.label,
                widget=forms.RadioSelect,
                required=False,  # left out: the current choice stays
                help_text=f"Default: {dict(MODES)[kind.default]}.",
            )
