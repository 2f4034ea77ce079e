"""Template tags drawing transcript messages (``sessions.message_html``).

One tag call a window (or a message) rather than a template include per
message: the markup is built in Python, the page's hot loop.
"""

from django import template

from hermes_ui.sessions import message_html

register = template.Library()


@register.simple_tag(takes_context=True)
def transcript_messages(context, shown):
    """Every message of a window, as the session page and its "load more" chunks show them."""
    return message_html.messages(context, shown)


@register.simple_tag(takes_context=True)
def transcript_message(context, m):
    """One message, for review's item page (its fields go beside each message)."""
    return message_html.message(context, m)
