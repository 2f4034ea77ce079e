"""Template tags of notes, mentions and corrections, for the session page and the top bar.

``{% message_review m %}`` runs once per message of a transcript: its few elements
are built with ``format_html`` rather than by a template per message (see
docs/development/session-page.md).
"""

from django import template
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from hermes_ui.review import mentions, note_marks
from hermes_ui.web.links import session_url

register = template.Library()

# Three elements a message (region, link, count): the slot the thread or the
# correction form opens in is added on the first click (static/js/session.js);
# without JavaScript the links are pages of their own.
_REGION = (
    '<div class="msg-review" id="msg-review-{mid}">{corrections}'
    '<a href="{thread}" hx-get="{thread}" '
    'hx-target="#msg-slot-{mid}" hx-swap="innerHTML" class="notes-link">Notes '
    '<span class="note-count" id="msg-note-count-{mid}">{count}</span></a>{correct}</div>'
)
# review/_message_queue's link, drawn here too: one template tag a message, not three includes.
_QUEUE = (
    '<a href="{url}" class="msg-menu rv-add-message" '
    'title="Add this message to a review queue">Queue…</a>'
)
_CORRECT = (
    ' · <a href="{url}" hx-get="{url}" hx-target="#msg-slot-{mid}" hx-swap="innerHTML" '
    'class="correct-link">{label}</a>'
)


@register.simple_tag(takes_context=True)
def session_notes(context) -> dict:
    """The session's own thread (not its messages'), for the session page."""
    request, ep, session_id = context["request"], context["endpoint"], context["session_id"]
    counts = note_marks.page_counts(request, ep, session_id)  # the messages' marks reuse them
    return note_marks.thread(request, ep, session_id, None, counts=counts)


@register.simple_tag(takes_context=True)
def message_review(context, message):
    """One message's review part: "Queue…" for reviewers (add it to a review queue),
    and its region: its corrections as diffs, its notes link and count, and
    "Correct…" for reviewers on the assistant's messages."""
    session_id = context.get("resolved_id") or context["session_id"]
    marks = note_marks.for_page(context["request"], context["endpoint"], session_id)
    mark = marks.message(message)
    shown = ""
    if mark.corrections:
        drawing = context.template.engine.get_template("review/_corrections.html")
        with context.push(corrections=mark.corrections):
            shown = drawing.render(context)  # a SafeString: the template escaped every value
    correct = ""
    if mark.correct_url:
        label = "Edit my correction" if mark.has_mine else "Correct…"
        correct = format_html(_CORRECT, url=mark.correct_url, mid=mark.message_id, label=label)
    queue = mark_safe("")
    can, page_id = context.get("can"), context.get("session_id")
    if page_id and (can or {}).get("reviewer"):
        url = session_url(context["endpoint"].id, page_id, "review_add", message=mark.message_id)
        queue = format_html(_QUEUE, url=url)
    return queue + format_html(
        _REGION,
        mid=mark.message_id,
        corrections=shown,
        thread=mark.thread_url,
        count=mark.note_count,
        correct=correct,
    )


@register.simple_tag(takes_context=True)
def unread_mentions(context) -> int:
    """The current user's unread mentions: one COUNT query, for the top bar."""
    request = context.get("request")
    return mentions.unread_count(getattr(request, "user", None))
