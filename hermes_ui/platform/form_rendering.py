"""One way to render a form field: ``{{ form.field.as_field_group }}``.

Labels and help text come from the form class; the markup (``.field``, the
``optional`` hint, ``.field-error`` with ``role="alert"``, the help text wired
to the input by ``aria-describedby``) lives once, in templates/partials/field.html.
The one-line GET filter bars set ``field_template_name = INLINE_FIELD_TEMPLATE``
on their form class: the same call then renders templates/partials/field_inline.html.
"""

from django import forms
from django.forms.renderers import TemplatesSetting

FIELD_TEMPLATE = "partials/field.html"
# Label and control side by side, no error paragraph (a bar's errors are listed
# in its results region, which htmx swaps while the bar stays as it was).
INLINE_FIELD_TEMPLATE = "partials/field_inline.html"


class HermesBoundField(forms.BoundField):
    """Django's bound field, whose error paragraph may keep an id pages already use.

    A field with an ``error_id`` attribute (``RequestForm.reason``: ``reason-error``,
    which the deletion page's browser test waits for) gets that id instead of
    Django's ``<auto_id>_error``, in the template and in ``aria-describedby`` alike.
    A field with ``show_error_codes = True`` also lists its errors' codes in the
    paragraph's ``data-codes`` (the chat form: tests tell refusals apart by code).
    """

    @property
    def template_name(self):
        """The field's own ``template_name``, else its form's ``field_template_name``
        (the filter bars: INLINE_FIELD_TEMPLATE), else the renderer's."""
        return (
            self.field.template_name
            or getattr(self.form, "field_template_name", None)
            or self.form.renderer.field_template_name
        )

    @property
    def shows_errors(self) -> bool:
        return self.template_name != INLINE_FIELD_TEMPLATE

    def build_widget_attrs(self, attrs, widget=None):
        attrs = super().build_widget_attrs(attrs, widget)
        if not self.shows_errors:
            attrs.pop("aria-invalid", None)  # it would outlive the error the bar never shows
        return attrs

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
            error_id = self.error_id if self.shows_errors else ""
            ids = ids.replace(f"{self.auto_id}_error", error_id).strip()
        return ids


class SeenValues(forms.Select):
    """The drop-down of a free-text filter (a source, a user): it offers the values
    seen so far (the form sets ``choices``) while the field still takes any text,
    so a link to a value not offered yet keeps working. The text field's
    ``maxlength`` is no attribute of a ``<select>``: it is left out."""

    def get_context(self, name, value, attrs):
        context = super().get_context(name, value, attrs)
        context["widget"]["attrs"].pop("maxlength", None)
        return context


class HermesFormRenderer(TemplatesSetting):
    """Loads form templates through settings.TEMPLATES, so the project's own are found."""

    field_template_name = FIELD_TEMPLATE
    bound_field_class = HermesBoundField
