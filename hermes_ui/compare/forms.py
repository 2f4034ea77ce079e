"""The two ids to compare, and a reviewer's verdict on them."""

from django import forms

from hermes_ui.compare.verdicts import CHOICES
from hermes_ui.hermes.ids import MAX_ID_LENGTH, IdError, check_path_id


class PairForm(forms.Form):
    a = forms.CharField(label="Session A", max_length=MAX_ID_LENGTH, strip=False)
    b = forms.CharField(label="Session B", max_length=MAX_ID_LENGTH, strip=False)

    def _clean_id(self, name: str) -> str:
        value = self.cleaned_data[name]
        try:
            return check_path_id(value)
        except IdError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_a(self):
        return self._clean_id("a")

    def clean_b(self):
        return self._clean_id("b")

    def clean(self):
        data = super().clean()
        if data.get("a") and data.get("a") == data.get("b"):
            raise forms.ValidationError("Pick two different sessions.")
        return data


class VerdictForm(PairForm):
    choice = forms.ChoiceField(label="Preferred", choices=CHOICES, widget=forms.RadioSelect)
    reason = forms.CharField(
        label="Why",
        max_length=2000,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Kept with the verdict; the audit trail keeps only its fingerprint.",
    )
    a = forms.CharField(widget=forms.HiddenInput, max_length=MAX_ID_LENGTH, strip=False)
    b = forms.CharField(widget=forms.HiddenInput, max_length=MAX_ID_LENGTH, strip=False)
