"""Forms for query strings and inputs; bad input becomes a message, not a 500."""

from django import forms


class ListQuery(forms.Form):
    offset = forms.IntegerField(required=False, min_value=0, max_value=1_000_000)
    limit = forms.IntegerField(required=False, min_value=1, max_value=200)
    source = forms.CharField(required=False, max_length=200, strip=True)
    children = forms.BooleanField(required=False)

    def clean_source(self):
        value = self.cleaned_data.get("source") or ""
        if any(ch in value for ch in "\r\n\x00"):
            raise forms.ValidationError("A source cannot contain line breaks.")
        return value


class MessagesQuery(forms.Form):
    after = forms.IntegerField(required=False, min_value=0)


class SessionPageQuery(forms.Form):
    """Where the session page opens: at a message (``upto``), or at a find match."""

    upto = forms.IntegerField(required=False, min_value=0)
    find = forms.CharField(required=False, max_length=200, strip=True)
    hit = forms.IntegerField(required=False, min_value=1)
