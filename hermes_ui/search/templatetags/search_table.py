"""The search table's helpers: whether a row is archived on Hermes, and that badge's words."""

from django import template

from hermes_ui.index import archived

register = template.Library()
register.filter("is_archived", archived.is_archived)


@register.simple_tag
def archived_label():
    return archived.LABEL
