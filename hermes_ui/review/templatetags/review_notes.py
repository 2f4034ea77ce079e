"""Template tags of notes, mentions and corrections, for the session page and the top bar."""

from django import template

from hermes_ui.review import mentions, note_marks
from hermes_ui.web.links import session_url

register = template.Library()


@register.simple_tag(takes_context=True)
def session_notes(context) -> dict:
    """The session's own thread (not its messages'), for the session page."""
    request, ep, session_id = context["request"], context["endpoint"], context["session_id"]
    counts = note_marks.page_counts(request, ep, session_id)  # the messages' marks reuse them
    return note_marks.thread(request, ep, session_id, None, counts=counts)


@register.simple_tag(takes_context=True)
def message_marks(context, message) -> note_marks.MessageMarks:
    """One message's marks for ``review/_message_notes.html``: its notes, corrections,
    links, and "Queue…" for reviewers on the session page."""
    session_id = context.get("resolved_id") or context["session_id"]
    marks = note_marks.for_page(context["request"], context["endpoint"], session_id)
    mark = marks.message(message)
    can, page_id = context.get("can"), context.get("session_id")
    if page_id and (can or {}).get("reviewer"):
        mark.queue_url = session_url(
            context["endpoint"].id, page_id, "review_add", message=mark.message_id
        )
    return mark


@register.simple_tag(takes_context=True)
def unread_mentions(context) -> int:
    """The current user's unread mentions: one COUNT query, for the top bar."""
    request = context.get("request")
    return mentions.unread_count(getattr(request, "user", None))
