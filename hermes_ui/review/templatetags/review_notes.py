"""Template tags of notes, mentions and corrections, for the session page and the top bar.

``{% message_notes m as marks %}`` runs once per message of a transcript: the
session's counts and corrections are read once per request (``note_marks``).
"""

from django import template

from hermes_ui.review import mentions, note_marks

register = template.Library()


@register.simple_tag(takes_context=True)
def session_notes(context) -> dict:
    """The session's own thread (not its messages'), for the session page."""
    return note_marks.thread(context["request"], context["endpoint"], context["session_id"], None)


@register.simple_tag(takes_context=True)
def message_notes(context, message) -> note_marks.MessageMarks:
    """One message's note count, corrections (as diffs) and links."""
    session_id = context.get("resolved_id") or context["session_id"]
    marks = note_marks.for_page(context["request"], context["endpoint"], session_id)
    return marks.message(message)


@register.simple_tag(takes_context=True)
def unread_mentions(context) -> int:
    """The current user's unread mentions: one COUNT query, for the top bar."""
    request = context.get("request")
    return mentions.unread_count(getattr(request, "user", None))
