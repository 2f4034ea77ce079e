"""One way to render a form field: ``{{ form.field.as_field_group }}``.

Labels and help text come from the form class; the markup (``.field``, the
``optional`` hint, ``.field-error`` with ``role="alert"``, the help text wired
to the input by ``aria-describedby``) lives once, in templates/partials/field.html.
"""

from django import forms
from django.forms.renderers import TemplatesSetting


class HermesBoundField(forms.BoundField):
    """Django's bound field, whose error paragraph may keep an id pages already use.

    A field with an ``error_id`` attribute (``RequestForm.reason``: ``reason-error``,
    which the deletion page's browser test waits for) gets that id instead of
    Django's ``<auto_id>_error``, in the template and in ``aria-describedby`` alike.
    A field with ``show_error_codes = True`` also lists its errors' codes in the
    paragraph's ``data-codes`` (the chat form: tests tell refusals apart by code).
    """

    @property
    def error_codes(self) -> str:
        return " ".join(sorted({err.code for err in self.errors.as_data() if err.code}))

    @property
    def error_id(self):
        return getattr(self.field, "error_id", None) or f"{self.auto_id}_error"

    @property
    def aria_describedby(self):
        ids = super().aria_describedby
        if ids and self.errors:
            ids = ids.replace(f"{self.auto_id}_error", self.error_id)
        return ids


class HermesFormRenderer(TemplatesSetting):
    """Loads form templates through settings.TEMPLATES, so the project's own are found."""

    field_template_name = "partials/field.html"
    bound_field_class = HermesBoundField
