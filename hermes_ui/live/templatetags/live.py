"""``{% live_region endpoint "list" %}`` / ``{% live_region endpoint "session" session_id %}``.

The hidden banner and pause note ``static/js/live.js`` fills in, with the
stream's URL resuming from the last event at the time the page was drawn (so
nothing between drawing and connecting is missed). Without JavaScript it
stays hidden: the page is as it was.
"""

from __future__ import annotations

from urllib.parse import urlencode

from django import template
from django.template.loader import render_to_string
from django.urls import reverse

from hermes_ui.live import channel, notices
from hermes_ui.web.links import session_url

register = template.Library()


@register.simple_tag
def live_region(endpoint, mode: str, session_id: str = ""):
    query = {"after": channel.last_id()}
    if session_id:
        query["session"] = session_id  # type: ignore[assignment]
    url = reverse("live_stream", kwargs={"endpoint": endpoint.id}) + "?" + urlencode(query)
    context = {"stream_url": url, "mode": mode, "session_id": session_id}
    if session_id:
        context["messages_url"] = session_url(endpoint.id, session_id, "session_messages")
    return render_to_string("live/_region.html", context)


@register.simple_tag
def live_notices(topic: str, endpoint=None, queue_id=None):
    """The hidden banner of a page following dashboard notices (``static/js/live_notices.js``):
    ``"deletions"`` (the deletion queue) or ``"review" endpoint queue_id`` (a queue's page)."""
    if topic == notices.DELETIONS:
        url = reverse("live_deletions")
    else:
        url = reverse("live_review", kwargs={"endpoint": endpoint.id, "queue_id": queue_id})
    url += "?" + urlencode({"after": notices.last_id()})
    return render_to_string("live/_notices.html", {"stream_url": url, "topic": topic})
