"""The API's session routes: no session id takes an endpoint down, against the real Hermes.

The same payloads as the pages' test (``tests/web/test_unroutable_ids.py``),
through every API read route whose path ends in a session id.
"""

from urllib.parse import quote

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

from tests.web.test_unroutable_ids import PAYLOADS, SEEDED

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def _read_routes() -> list[str]:
    """``/api/v1/e/local/<action>/`` of every API route ending in a session id."""
    found = set()

    def walk(patterns, prefix):
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                route = prefix + str(pattern.pattern)
                if route.startswith("api/") and route.endswith("/<path:session_id>"):
                    found.add(
                        "/" + route.replace("<endpoint>", "local")[: -len("<path:session_id>")]
                    )

    walk(get_resolver().url_patterns, "")
    return sorted(found)


def test_no_session_id_takes_the_endpoint_down_for_another_token(peer_endpoint, bearer):
    routes = _read_routes()
    assert {"/api/v1/e/local/session/", "/api/v1/e/local/messages/"} <= set(routes), routes
    attacker, other = bearer("support"), bearer("reviewer")
    for payload in PAYLOADS:
        for route in routes:
            answer = attacker.get(route + quote(payload, safe=""))
            assert answer.status_code < 500, (route, payload[:40], answer.status_code)
        assert other.get(f"/api/v1/e/local/session/{SEEDED}").status_code == 200, payload[:40]
    braces = attacker.get("/api/v1/e/local/session/" + quote("{x}", safe=""))
    assert braces.status_code == 400
