from django import template

from hermes_ui.shares import links
from hermes_ui.web.links import session_url

register = template.Library()


@register.simple_tag
def share_new_url(endpoint_id: str, session_id: str, lineage: bool = False) -> str:
    """The share form of one session, ``/e/<endpoint>/share/<id>/``, with its lineage."""
    return session_url(endpoint_id, session_id, "share_new", **({"lineage": 1} if lineage else {}))


@register.simple_tag
def sharing_on() -> bool:
    return bool(links.allowed_kinds())
