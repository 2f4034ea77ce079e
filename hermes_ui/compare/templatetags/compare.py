"""Entry points into comparison from other features' pages."""

from django import template

from hermes_ui.compare import panel
from hermes_ui.web.links import compare_url as _compare_url

register = template.Library()


@register.simple_tag
def compare_url(endpoint_id, a_id, b_id):
    return _compare_url(endpoint_id, a_id, b_id)


@register.inclusion_tag("compare/_session_panel_lazy.html")
def compare_panel(endpoint, session):
    """A session page's compare region, filled once in view (see ``compare.panel``):
    the siblings and verdicts are secondary, so the page does not wait on them."""
    return {"panel_url": panel.url(endpoint.id, session.id, session.parent_id)}
