"""Template tags of the review core, for the session page's review region."""

from django import template

from hermes_ui.review import shown

register = template.Library()


@register.simple_tag(takes_context=True)
def review_shown(context, endpoint, session_id):
    """Labels of finished reviews of this session, its items, and the user's queues."""
    request = context.get("request")
    user = getattr(request, "user", None)
    return shown.for_session(endpoint, session_id, user)
