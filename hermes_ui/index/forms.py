"""Query strings of the index pages; bad input becomes a message, not a 500."""

from django import forms

from hermes_ui.index import content_search, query_syntax
from hermes_ui.index.queries import parse_after
from hermes_ui.lineage.classify import KINDS, LABELS
from hermes_ui.platform.form_rendering import INLINE_FIELD_TEMPLATE, SeenValues


class IndexQuery(forms.Form):
    """The search page's query string; its filter bar shows q, source, kind and state."""

    field_template_name = INLINE_FIELD_TEMPLATE
    cache_field_html = True  # form_rendering: its empty fields render the same each time

    q = forms.CharField(
        required=False,
        max_length=200,
        strip=True,
        label="Search",
        widget=forms.SearchInput(
            {
                "placeholder": 'words, "a phrase", prefix*, '
                "source: kind: open: reason: role: after: before:",
                "aria-describedby": "search-syntax",  # the page's syntax notes
                "data-search": True,  # "/" focuses it (app.js)
            }
        ),
    )
    source = forms.CharField(required=False, max_length=200, strip=True, widget=SeenValues)
    kind = forms.ChoiceField(
        required=False, choices=[("", "Any kind"), *((k, LABELS[k]) for k in KINDS)]
    )
    state = forms.ChoiceField(
        required=False, choices=[("", "Open or closed"), ("open", "Open"), ("closed", "Closed")]
    )
    # The saved view these filters came from (the views bar marks it); ``all``: every session.
    view = forms.CharField(required=False, max_length=60)
    snap = forms.IntegerField(required=False, min_value=0)
    after = forms.CharField(required=False, max_length=60)
    # Keyset of the transcript results: (rank, resolved session id) of the last one shown.
    cafter = forms.CharField(required=False, max_length=400)
    # Show the id/title/preview table of a search with words at once (it is
    # otherwise loaded when scrolled to; the link to it carries this).
    table = forms.BooleanField(required=False)

    def offer_sources(self, sources) -> None:
        """The sources the bar's drop-down offers (those in the index)."""
        self.fields["source"].widget.choices = [("", "All sources"), *((s, s) for s in sources)]

    def clean_after(self):
        value = self.cleaned_data.get("after") or ""
        if not value:
            return None
        parsed = parse_after(value)
        if parsed is None:
            raise forms.ValidationError("This page link is damaged; start from the first page.")
        return parsed

    def clean_cafter(self):
        value = self.cleaned_data.get("cafter") or ""
        if not value:
            return None
        parsed = content_search.parse_after(value)
        if parsed is None:
            raise forms.ValidationError("This page link is damaged; start from the first page.")
        return parsed

    def clean(self):
        data = super().clean()
        data["query"] = query_syntax.parse(data.get("q") or "", kinds=KINDS)
        for message in data["query"].errors:
            self.add_error("q", message)
        for name in ("q", "source"):
            if any(ch in (data.get(name) or "") for ch in "\r\n\x00"):
                self.add_error(name, "Line breaks are not allowed here.")
        if data.get("after") is not None and data.get("snap") is None:
            self.add_error("after", "This page link is damaged; start from the first page.")
        return data
