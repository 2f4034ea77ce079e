"""No session id takes an endpoint down for anyone, against the real Hermes API server.

Hermes' router (aiohttp) cannot match a path segment holding ``{`` or ``}``,
percent-encoded or not, and answers a request line over 8190 bytes with a
plain 400: such answers carry no session API error. One person sending
those ids (a scanner's payloads) to every session-scoped page must get a
clear 4xx for that id, and another person's pages of the same endpoint must
keep answering 200.
"""

import string
from urllib.parse import quote

import httpx
import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.hermes.ids import MAX_ENCODED_ID, UNROUTABLE
from hermes_ui.web.links import session_url

pytestmark = [pytest.mark.django_db, pytest.mark.peer]

SEEDED = "20261103_110000_7d3a9e01"  # in the demo seed


def _session_routes() -> list[str]:
    """The name of every page whose path ends in a session id, from the URL resolver."""
    found = []

    def walk(patterns):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns)
            elif isinstance(pattern, URLPattern):
                route = str(pattern.pattern)
                if route.startswith("e/<str:endpoint>/") and route.endswith("<path:session_id>/"):
                    found.append(pattern.name)

    walk(get_resolver().url_patterns)
    return sorted(set(found))


# One id per printable ASCII punctuation character, whitespace and control classes,
# non-ASCII letters, then what wapiti 3.3.2 sent in the scan that found this.
PAYLOADS = [
    *(f"a{ch}b" for ch in string.punctuation),
    *(f"a{ch}b" for ch in " \t\x01\x1f\x7f\x85\u00a0\u2028\u202e\ufeff"),
    "ünï 会话",
    "😀",
    "{x}",
    "{",
    "}",
    "%7Bx%7D",
    "../../../../etc/passwd",
    "..%2F..%2Fetc%2Fpasswd",
    "%2F",
    "/",
    "%00",
    "a\x00b",
    "'",
    '"',
    "' OR '1'='1",
    "<script>alert('hermes')</script>",
    "${jndi:ldap://127.0.0.1/x}",
    ";id",
    "|id",
    "`id`",
    "x" * 257,
    "x" * 9000,
    "😀" * 800,
    ".",
    "..",
]


def _other_pages_answer(client) -> None:
    for url in ("/e/local/sessions/", session_url("local", SEEDED)):
        answer = client.get(url)
        assert answer.status_code == 200, (url, answer.status_code)


def test_no_session_id_takes_the_endpoint_down_for_another_person(peer_endpoint, login, colleague):
    routes = _session_routes()
    assert len(routes) >= 10, routes  # the enumeration found the session pages
    attacker = login("support")
    _other_pages_answer(colleague)
    for payload in PAYLOADS:
        for route in routes:
            url = session_url("local", payload, route)
            answer = attacker.get(url)
            assert answer.status_code < 500, (route, payload[:40], answer.status_code)
        _other_pages_answer(colleague)
    assert not EndpointProbe.objects.filter(error_code="no_session_api").exists()


@pytest.mark.parametrize("payload", ["{x}", "a}b", "x" * 9000])
def test_an_id_hermes_cannot_route_is_refused_before_the_call(peer_endpoint, login, payload):
    answer = login("support").get(session_url("local", payload))
    assert answer.status_code == 400
    text = answer.content.decode()
    assert "cannot" in text and "Hermes has no session API" not in text


def test_hermes_routes_every_id_but_the_refused_ones(hermes_peer):
    """The rule in ``hermes.ids`` as measured: every other character reaches the session
    API (a JSON answer), a brace or an over-long request line does not."""
    chars = [chr(n) for n in range(1, 128) if chr(n) not in "\r\n\x00"] + ["é", "会", "😀"]
    headers = {"Authorization": f"Bearer {hermes_peer.key}"}
    with httpx.Client(base_url=hermes_peer.base_url, headers=headers, timeout=30) as raw:

        def reaches_the_api(session_id: str) -> bool:
            for suffix in ("", "/messages"):
                answer = raw.get(f"/api/sessions/{quote(session_id, safe='')}{suffix}")
                if not answer.headers["content-type"].startswith("application/json"):
                    return False
            return True

        refused = [ch for ch in chars if not reaches_the_api(f"a{ch}b")]
        assert refused == list(UNROUTABLE)
        assert reaches_the_api("x" * MAX_ENCODED_ID)
        assert not reaches_the_api("x" * 9000)
