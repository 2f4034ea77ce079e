from urllib.parse import urlencode

from django import template
from django.urls import reverse

from hermes_ui.shares import links

register = template.Library()


@register.simple_tag
def share_new_url(endpoint_id: str, session_id: str) -> str:
    """The share form of one session; the id travels in the query string, as any id may."""
    url = reverse("share_new", kwargs={"endpoint": endpoint_id})
    return url + "?" + urlencode({"session": session_id})


@register.simple_tag
def sharing_on() -> bool:
    return bool(links.allowed_kinds())
