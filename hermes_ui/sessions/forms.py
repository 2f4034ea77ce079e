"""Forms for query strings and inputs; bad input becomes a message, not a 500."""

from django import forms

from hermes_ui.platform.form_rendering import INLINE_FIELD_TEMPLATE, SeenValues


class ListQuery(forms.Form):
    """The list's query string; its filter bar shows ``source`` and ``children``."""

    field_template_name = INLINE_FIELD_TEMPLATE

    offset = forms.IntegerField(required=False, min_value=0, max_value=1_000_000)
    limit = forms.IntegerField(required=False, min_value=1, max_value=200)
    source = forms.CharField(
        required=False,
        max_length=200,
        strip=True,
        widget=SeenValues,
        help_text="The source filter is exact. Sources listed are those seen on this endpoint.",
    )
    children = forms.BooleanField(
        required=False,
        label="Include children (admin)",
        widget=forms.CheckboxInput({"value": "1"}),  # children=1 in the URL, as links write it
    )

    def offer_sources(self, sources) -> None:
        """The sources the bar's drop-down offers (those seen on the endpoint)."""
        self.fields["source"].widget.choices = [("", "All sources"), *((s, s) for s in sources)]

    def clean_source(self):
        value = self.cleaned_data.get("source") or ""
        if any(ch in value for ch in "\r\n\x00"):
            raise forms.ValidationError("A source cannot contain line breaks.")
        return value


class MessagesQuery(forms.Form):
    after = forms.IntegerField(required=False, min_value=0)


class SessionPageQuery(forms.Form):
    """Where the session page opens: at a message (``upto``), or at a find match.
    Its ``find`` field is the page's find box (templates/sessions/_find.html)."""

    field_template_name = INLINE_FIELD_TEMPLATE
    cache_field_html = True  # form_rendering: the empty find box of every session page

    upto = forms.IntegerField(required=False, min_value=0)
    # at=latest: the last window (the latest turns), loaded directly.
    at = forms.ChoiceField(required=False, choices=[("", "start"), ("latest", "latest")])
    find = forms.CharField(
        required=False,
        max_length=200,
        strip=True,
        label="Find in this transcript",
        # Optional in the URL, but the box has nothing to find without words.
        widget=forms.SearchInput({"required": True}),
    )
    hit = forms.IntegerField(required=False, min_value=1)
