"""``{% export_form as form %}``: the form of the session page's "Export…" box."""

from django import template

from hermes_ui.export.forms import ExportQuery
from hermes_ui.web.roles import SUPPORT

register = template.Library()


@register.simple_tag(takes_context=True)
def export_form(context):
    return ExportQuery.offered(always_redacted=context.get("user_role") == SUPPORT)
