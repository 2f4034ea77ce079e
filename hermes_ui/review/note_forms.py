"""Forms of notes, corrections and mentions (review-notes): bad input is a form error."""

from django import forms
from django.utils.safestring import mark_safe

from hermes_ui.web.params import BIGGEST

NOTE_MAX = 5000
CORRECTION_MAX = 20000


def _no_nul(value: str) -> str:
    if "\x00" in value:
        raise forms.ValidationError("The text cannot contain NUL characters.")
    return value


class MessageQuery(forms.Form):
    """``?message=<id>``: which message's thread or correction (absent: the session's)."""

    message = forms.IntegerField(max_value=BIGGEST, required=False, min_value=0)


class NoteForm(forms.Form):
    cache_field_html = True  # form_rendering: the empty note box of every session page
    body = forms.CharField(
        label="Note",
        max_length=NOTE_MAX,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=mark_safe(  # constant markup, nothing from Hermes or a user
            "Plain text. Write <code>@username</code> to mention a colleague."
        ),
    )
    message = forms.IntegerField(
        max_value=BIGGEST, required=False, min_value=0, widget=forms.HiddenInput
    )

    def clean_body(self):
        return _no_nul(self.cleaned_data["body"])


class CorrectionForm(forms.Form):
    text = forms.CharField(
        label="What the assistant should have said",
        max_length=CORRECTION_MAX,
        widget=forms.Textarea(attrs={"rows": 6}),
        help_text="Shown under the message as a word diff against what it said.",
    )
    message = forms.IntegerField(max_value=BIGGEST, min_value=0, widget=forms.HiddenInput)

    def clean_text(self):
        return _no_nul(self.cleaned_data["text"])


class MarkReadForm(forms.Form):
    """One mention (``mention``) or all of the user's (``all``)."""

    mention = forms.IntegerField(max_value=BIGGEST, required=False, min_value=1)
    all = forms.BooleanField(required=False)

    def clean(self):
        data = super().clean()
        if not data.get("all") and not data.get("mention"):
            raise forms.ValidationError("Say which mention to mark read.")
        return data
