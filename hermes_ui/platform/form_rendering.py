"""One way to render a form field: ``{{ form.field.as_field_group }}``.

Labels and help text come from the form class; the markup (``.field``, the
``optional`` hint, ``.field-error`` with ``role="alert"``, the help text wired
to the input by ``aria-describedby``) lives once, in templates/partials/field.html.
The one-line GET filter bars set ``field_template_name = INLINE_FIELD_TEMPLATE``
on their form class: the same call then renders templates/partials/field_inline.html.

A form class with ``cache_field_html = True`` keeps the HTML of its empty,
error-free fields (kept by measure: docs/development/benchmarks.md).
"""

from django import forms
from django.forms.renderers import TemplatesSetting
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

FIELD_TEMPLATE = "partials/field.html"
# Label and control side by side, no error paragraph (a bar's errors are listed
# in its results region, which htmx swaps while the bar stays as it was).
INLINE_FIELD_TEMPLATE = "partials/field_inline.html"
_RENDERED: dict[tuple, SafeString] = {}  # cache_field_html forms: key -> field group HTML
_RENDERED_MAX = 256


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

    def as_field_group(self):
        return self._kept("group", super().as_field_group)

    def __str__(self):
        """The widget alone (``{{ form.field }}``: the save form's hidden fields)."""
        return self._kept("widget", super().__str__)

    def _kept(self, part: str, render):
        key = self._cache_key()
        if key is None:
            return render()
        key = (part, *key)
        found = _RENDERED.get(key)
        if found is None:
            if len(_RENDERED) >= _RENDERED_MAX:
                _RENDERED.clear()
            found = _RENDERED[key] = render()
        return found

    def _cache_key(self) -> tuple | None:
        """What the field group's HTML depends on, for an empty field without errors
        (a typed value is request text: rendered each time, never kept). A box the form
        itself ticks (``True``, the export box's "redacted" for support) is as constant."""
        if not getattr(self.form, "cache_field_html", False):
            return None
        widget, value = self.field.widget, self.value()
        choices = getattr(widget, "choices", ())
        constant = value is True or value in (None, "", False)
        if not constant or self.errors or not isinstance(choices, (list, tuple)):
            return None
        return (
            type(self.form),
            type(self.form.renderer),
            self.name,
            self.html_name,
            self.auto_id,
            self.template_name,
            str(self.label),
            str(self.help_text),
            self.field.required,
            self.field.disabled,
            self.field.show_hidden_initial,
            getattr(self.form, "mark_optional", False),
            type(widget),
            widget.template_name,
            repr(widget.attrs),
            repr(choices),
            repr(value),
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


class PlainHiddenInput(forms.HiddenInput):
    """A hidden input drawn in Python, the markup of Django's ``input.html`` and
    ``attrs.html``: a value new on every page (the chat box's form key) cannot be kept
    like an empty field, and two templates for one ``<input>`` are most of its cost."""

    def render(self, name, value, attrs=None, renderer=None):
        context = self.get_context(name, value, attrs)["widget"]
        out = [f'<input type="{escape(context["type"])}" name="{escape(context["name"])}"']
        if context["value"] is not None:
            out.append(f' value="{escape(str(context["value"]))}"')
        for key, val in context["attrs"].items():
            if val is True:
                out.append(f" {escape(key)}")
            elif val is not False:
                out.append(f' {escape(key)}="{escape(str(val))}"')
        out.append(">")
        return mark_safe("".join(out))  # noqa: S308 - every value above is escaped


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
