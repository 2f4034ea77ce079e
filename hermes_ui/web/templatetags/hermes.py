from django import template

from hermes_ui.hermes.session import is_closed
from hermes_ui.web import formatting, links, timefmt
from hermes_ui.web.markdown import render_markdown

register = template.Library()

# For plain rows (list pages, index rows, snapshots); a ``Session`` has ``.closed``.
register.filter("is_closed", is_closed)
register.filter("number", formatting.number)
register.filter("short_id", formatting.short_id)
register.simple_tag(formatting.when, name="when")


@register.simple_tag
def session_url(endpoint_id, session_id, view="session_detail", **query):
    """A session-scoped URL (optionally with a query string), encoded like every session link."""
    return links.session_url(endpoint_id, session_id, view, **query)


@register.filter
def markdown(text):
    return render_markdown(text if isinstance(text, str) else "")


@register.filter
def exact_time(ts):
    return timefmt.exact(ts) if ts is not None else "—"


@register.filter
def usd(value):
    if value is None:
        return "—"
    try:
        return f"${float(value):,.4f}"
    except (TypeError, ValueError):
        return str(value)


@register.simple_tag(takes_context=True)
def endpoint_switch_url(context, endpoint_id):
    """The top bar's link to another endpoint: the same kind of page there."""
    request = context.get("request")
    return links.switch_url(getattr(request, "resolver_match", None), endpoint_id)
