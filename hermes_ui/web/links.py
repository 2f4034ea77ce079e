"""URLs for session pages.

A session id is user text: it can hold ``/``, ``%``, ``?``, ``#`` or spaces.
It is percent-encoded as ONE path segment (``/`` included) so a browser
never splits it or resolves ``..`` inside it; Django decodes it back before
routing, and the ``path`` converter accepts the decoded slashes. The id is
always the last part of the path (see ``hermes_ui.web.routes``).
"""

from functools import lru_cache
from urllib.parse import quote, urlencode

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.urls import get_script_prefix, get_urlconf, reverse

from hermes_ui.web.routes import QUERY_SUFFIX

_PLACEHOLDER = "SESSION-ID-PLACEHOLDER"
DOT_IDS = frozenset({".", ".."})


def session_url(endpoint_id: str, session_id: str, view: str = "session_detail", **query) -> str:
    if session_id in DOT_IDS:
        # Dot segments are resolved by browsers even when percent-encoded, so
        # these two ids travel in the query string instead.
        url = reverse(view + QUERY_SUFFIX, kwargs={"endpoint": endpoint_id})
        return url + "?" + urlencode({"id": session_id, **query})
    url = _pattern(view, endpoint_id, get_script_prefix(), get_urlconf())
    url = url.replace(_PLACEHOLDER, quote(session_id, safe=""))
    if query:
        url += "?" + urlencode(query)
    return url


@lru_cache(maxsize=512)
def _pattern(view: str, endpoint_id: str, _prefix: str, _urlconf) -> str:
    """A session URL with a placeholder for the id. Pages link dozens of sessions
    and ``reverse`` is costly; the same view on the same endpoint (under the same
    script prefix and URLconf, hence the key) always reverses the same way."""
    return reverse(view, kwargs={"endpoint": endpoint_id, "session_id": _PLACEHOLDER})


@receiver(setting_changed)
def _forget_patterns(*, setting, **kwargs):
    if setting == "ROOT_URLCONF":  # as Django clears its own URL caches then
        _pattern.cache_clear()


def list_url(endpoint_id: str, **query) -> str:
    url = reverse("session_list", kwargs={"endpoint": endpoint_id})
    clean = {k: v for k, v in query.items() if v is not None and v is not False and v != ""}
    return url + ("?" + urlencode(clean) if clean else "")


# Pages that exist on every endpoint as they are: the top bar switches to the
# same page on another endpoint. Any other page (a session, a form about one
# session, a page outside any endpoint) switches to that endpoint's list.
SAME_PAGE_ON_EVERY_ENDPOINT = frozenset(
    {"session_list", "session_create", "compare_to_review", "usage"}
)


def switch_url(resolver_match, endpoint_id: str) -> str:
    """Where the top bar's link to ``endpoint_id`` goes from the current page."""
    name = getattr(resolver_match, "url_name", None)
    kwargs = getattr(resolver_match, "kwargs", {}) or {}
    if name in SAME_PAGE_ON_EVERY_ENDPOINT and set(kwargs) == {"endpoint"}:
        return reverse(name, kwargs={"endpoint": endpoint_id})
    return list_url(endpoint_id)


def compare_url(endpoint_id: str, a_id: str, b_id: str) -> str:
    """The compare page of two sessions; both ids are percent-encoded in the query."""
    return (
        reverse("compare", kwargs={"endpoint": endpoint_id})
        + "?"
        + urlencode({"a": a_id, "b": b_id})
    )
