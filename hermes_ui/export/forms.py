"""The export query string, and the "Export…" box on the session page that writes it."""

from django import forms

from hermes_ui.platform.form_rendering import INLINE_FIELD_TEMPLATE

_ON = {"1", "true", "on", "yes"}
_OFF = {"0", "false", "off", "no"}

# The formats offered, in the box's order (formats.WRITERS has one writer each).
FORMATS = {"md": "Markdown", "html": "HTML (one file)", "json": "JSON"}


def _is_on(value) -> bool:
    return value is True or (isinstance(value, str) and value.strip().lower() in _ON)


class FlagCheckbox(forms.CheckboxInput):
    """The box's checkbox (it sends ``1``); the query value reaches FlagField as
    written, never through the checkbox's own reading (see FlagField)."""

    def __init__(self):
        super().__init__({"value": "1"}, check_test=_is_on)

    def value_from_datadict(self, data, files, name):
        return data.get(name)


class FlagField(forms.Field):
    """A yes/no query parameter read explicitly: absent or empty is off.

    Not ``BooleanField``: its checkbox widget reads every value but ``false``
    as true, so ``redact=0`` turned redaction *on* (and ``lineage=0`` the
    lineage); an unknown value is refused instead of guessed. ``param`` names
    the parameter in that refusal; ``label`` is what the box shows.
    """

    widget = FlagCheckbox

    def __init__(self, *, param: str, **kwargs):
        self.param = param
        super().__init__(required=False, **kwargs)

    def to_python(self, value) -> bool:
        text = (value or "").strip().lower()
        if text in _ON:
            return True
        if text in _OFF or text == "":
            return False
        raise forms.ValidationError(
            f"{self.param} must be 1 or 0 (or true/false, on/off, yes/no), got {value!r}."
        )


class ExportQuery(forms.Form):
    field_template_name = INLINE_FIELD_TEMPLATE
    cache_field_html = True  # form_rendering: the session page's export box, every view

    format = forms.ChoiceField(choices=list(FORMATS.items()))
    redact = FlagField(param="redact", label="Mask secrets and personal data")
    lineage = FlagField(param="lineage", label="Whole lineage")

    @classmethod
    def offered(cls, *, always_redacted: bool) -> "ExportQuery":
        """The box's form; support staff see masking on and fixed (the view enforces it)."""
        form = cls()
        if always_redacted:
            redact = form.fields["redact"]
            redact.disabled, redact.initial = True, True
            redact.label = f"{redact.label} (always on for support)"
        return form

    def reason(self) -> str:
        """What is wrong with the query, for the 400 page."""
        if "format" in self.errors:
            return "Choose the export format: format=json, md or html."
        return " ".join(str(message) for errors in self.errors.values() for message in errors)
