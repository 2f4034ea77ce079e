"""Forms of saved views: save the current search, rename or share one, pick a default."""

from django import forms

from hermes_ui.index.forms import IndexQuery
from hermes_ui.saved_views.models import MAX_NAME, SavedView


class NameForm(forms.Form):
    name = forms.CharField(max_length=MAX_NAME, label="Name")
    shared = forms.BooleanField(
        required=False,
        label="Shared with every dashboard user",
        help_text="Reviewers and admins may share; others see a shared view and may not change it.",
    )

    def __init__(self, *args, owner=None, instance: SavedView | None = None, **kwargs):
        self.owner, self.instance = owner, instance
        super().__init__(*args, **kwargs)

    def clean_name(self):
        raw = self.cleaned_data["name"]
        if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in raw):
            raise forms.ValidationError("A view name cannot contain control characters.")
        name = " ".join(raw.split())
        if not name:
            raise forms.ValidationError("Type a name.")
        taken = SavedView.objects.filter(owner=self.owner, name__iexact=name)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError("You already have a view with this name.")
        return name


class SaveViewForm(NameForm):
    """The current search of the index page, saved under a name."""

    cache_field_html = True  # on every index page with a search (form_rendering)

    q = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput)
    source = forms.CharField(required=False, max_length=200, widget=forms.HiddenInput)
    kind = forms.CharField(required=False, max_length=20, widget=forms.HiddenInput)
    state = forms.CharField(required=False, max_length=10, widget=forms.HiddenInput)

    def clean(self):
        data = super().clean()
        search = IndexQuery(
            {name: data.get(name) or "" for name in ("q", "source", "kind", "state")}
        )
        if not search.is_valid():
            for field, errors in search.errors.items():
                for message in errors:
                    self.add_error(None, f"The search is not valid ({field}: {message})")
        return data


class DefaultForm(forms.Form):
    key = forms.CharField(max_length=40)
