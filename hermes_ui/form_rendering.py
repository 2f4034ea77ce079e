"""One way to render a form field: ``{{ form.field.as_field_group }}``.

Labels and help text come from the form class; the markup (``.field``, the
``optional`` hint, ``.field-error`` with ``role="alert"``, the help text wired
to the input by ``aria-describedby``) lives once, in templates/partials/field.html.
"""

from django.forms.renderers import TemplatesSetting


class HermesFormRenderer(TemplatesSetting):
    """Loads form templates through settings.TEMPLATES, so the project's own are found."""

    field_template_name = "partials/field.html"
