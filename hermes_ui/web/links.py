"""URLs for session pages.

A session id is user text: it can hold ``/``, ``%``, ``?``, ``#`` or spaces.
It is percent-encoded as ONE path segment (``/`` included) so a browser
never splits it or resolves ``..`` inside it; Django decodes it back before
routing, and the ``path`` converter accepts the decoded slashes. The id is
always the last part of the path (see ``hermes_ui.web.routes``).
"""

from urllib.parse import quote, urlencode

from django.urls import reverse

from hermes_ui.web.routes import QUERY_SUFFIX

_PLACEHOLDER = "SESSION-ID-PLACEHOLDER"
DOT_IDS = frozenset({".", ".."})


def session_url(endpoint_id: str, session_id: str, view: str = "session_detail", **query) -> str:
    if session_id in DOT_IDS:
        # Dot segments are resolved by browsers even when percent-encoded, so
        # these two ids travel in the query string instead.
        url = reverse(view + QUERY_SUFFIX, kwargs={"endpoint": endpoint_id})
        return url + "?" + urlencode({"id": session_id, **query})
    url = reverse(view, kwargs={"endpoint": endpoint_id, "session_id": _PLACEHOLDER})
    url = url.replace(_PLACEHOLDER, quote(session_id, safe=""))
    if query:
        url += "?" + urlencode(query)
    return url


def list_url(endpoint_id: str, **query) -> str:
    url = reverse("session_list", kwargs={"endpoint": endpoint_id})
    clean = {k: v for k, v in query.items() if v not in (None, "", False)}
    return url + ("?" + urlencode(clean) if clean else "")
