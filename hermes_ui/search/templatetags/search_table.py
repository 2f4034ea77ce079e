"""``{% index_rows %}`` and ``{% badges %}``: the index table's markup, built in Python."""

from django import template

from hermes_ui.search import table

register = template.Library()


@register.simple_tag
def index_rows(endpoint_id, rows):
    return table.rows_html(endpoint_id, rows)


@register.simple_tag
def badges(marks):
    return table.badges_html(marks)
