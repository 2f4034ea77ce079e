"""Forms of the tags feature: the managed list, and a tag added to or removed from sessions."""

from django import forms
from django.utils.safestring import mark_safe

from hermes_ui.platform.form_rendering import INLINE_FIELD_TEMPLATE
from hermes_ui.tags.models import COLOURS, MAX_NAME, Tag
from hermes_ui.tags.tagging import ADD, REMOVE


class TagForm(forms.Form):
    name = forms.CharField(
        max_length=MAX_NAME,
        label="Name",
        help_text=mark_safe(  # noqa: S308 - constant markup, nothing from Hermes or a user
            f"At most {MAX_NAME} characters, no control characters or double quotes; "
            "unique whatever the case. Search with <code>tag:name</code>, or "
            '<code>tag:"two words"</code>.'
        ),
    )
    colour = forms.ChoiceField(choices=COLOURS, label="Colour")

    def __init__(self, *args, instance: Tag | None = None, **kwargs):
        self.instance = instance
        if instance is not None:
            kwargs.setdefault("initial", {"name": instance.name, "colour": instance.colour})
        super().__init__(*args, **kwargs)
        if instance is not None:
            self.fields["name"].help_text = ""  # said once, by the new tag's form

    def clean_name(self):
        name = " ".join(self.cleaned_data["name"].split())
        if not name:
            raise forms.ValidationError("Type a name.")
        if any(ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in self.cleaned_data["name"]):
            raise forms.ValidationError("A tag name cannot contain control characters.")
        if '"' in name:
            raise forms.ValidationError("A tag name cannot contain double quotes.")
        taken = Tag.objects.filter(name__iexact=name)
        if self.instance is not None:
            taken = taken.exclude(pk=self.instance.pk)
        if taken.exists():
            raise forms.ValidationError("Another tag already has this name (case does not matter).")
        return name


class SessionTagForm(forms.Form):
    """One tag added to or removed from one session (the session page)."""

    op = forms.ChoiceField(choices=[(ADD, "Add"), (REMOVE, "Remove")])
    tag = forms.ModelChoiceField(
        queryset=Tag.objects.all(), label="Tag", empty_label=None, to_field_name="pk"
    )


class AddTagForm(forms.Form):
    """The session page's one-line "add a tag" picker (posted as ``SessionTagForm``):
    offers the tags the session does not have yet, read once by the region."""

    field_template_name = INLINE_FIELD_TEMPLATE
    tag = forms.ChoiceField(label="Add a tag")

    def __init__(self, tags, **kwargs):
        super().__init__(auto_id="id_add_%s", **kwargs)
        self.fields["tag"].choices = [(tag.pk, tag.name) for tag in tags]


class BulkTagForm(forms.Form):
    """A tag added to or removed from every session of a bulk selection."""

    tag = forms.ModelChoiceField(queryset=Tag.objects.all(), label="Tag", empty_label=None)
    op = forms.ChoiceField(
        choices=[(ADD, "Add this tag"), (REMOVE, "Remove this tag")],
        label="Change",
        widget=forms.RadioSelect,
        initial=ADD,
    )
