"""The dataset export's query string: format, one record per message or per session, masking."""

from django import forms

from hermes_ui.review import dataset, rules


class DatasetQuery(forms.Form):
    format = forms.ChoiceField(
        choices=[("jsonl", "JSON Lines"), ("csv", "CSV")], initial="jsonl", label="Format"
    )
    per = forms.ChoiceField(
        choices=[(dataset.MESSAGE, "labelled or corrected message"), (dataset.SESSION, "session")],
        required=False,
        initial=dataset.MESSAGE,
        label="One record per",
    )
    # Masking is on unless switched off explicitly (reviewers and admins only).
    redact = forms.ChoiceField(
        choices=[("1", "Mask secrets and personal data"), ("0", "Leave the text unmasked")],
        required=False,
        initial="1",
        label="Masking",
    )

    def clean_per(self) -> str:
        return self.cleaned_data.get("per") or dataset.MESSAGE

    def clean_redact(self) -> bool:
        return self.cleaned_data.get("redact") != "0"

    def reason(self) -> str:
        return " ".join(f"{name}: {m}" for name, errors in self.errors.items() for m in errors)


class SearchDatasetQuery(DatasetQuery):
    q = forms.CharField(
        max_length=200, label="Search", help_text="The sessions to export, as the index finds them."
    )

    # Set once the person has seen that part of the search was taken as words.
    words = forms.BooleanField(required=False, widget=forms.HiddenInput)

    field_order = ["q", "format", "per", "redact"]

    def clean_q(self):
        text = self.cleaned_data["q"]
        for problem in rules.problems(text):
            self.add_error("q", problem)
        return text

    def search_notes(self) -> list:
        """Unknown ``name:value`` parts searched as words: shown before a download, never
        silently exported (a file cannot say so)."""
        if self.is_bound and self.is_valid() and not self.cleaned_data["words"]:
            return rules.notes(self.cleaned_data["q"])
        return []
