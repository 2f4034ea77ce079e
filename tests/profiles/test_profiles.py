"""Hermes profiles as endpoints, on a real 0.19.0 server with two multiplexed profiles.

With ``gateway.multiplex_profiles`` on, Hermes serves every profile under
``/p/<name>/`` from that profile's own ``state.db`` (devtools/peer/launcher.py,
``PeerConfig.profiles``). An endpoint URL that names a profile is one database:
every request of the dashboard must keep the prefix, ``/health`` included.
"""

import io
import re

import httpx
import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.urls import reverse

from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.verification.models import VerificationReport
from hermes_ui.web.links import session_url
from tests.changes.conftest import form_key
from tests.support.peers import endpoint_for, index, make, read

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def ids(endpoint: Endpoint) -> set[str]:
    client = HermesClient(endpoint)
    try:
        return {row["id"] for row in client.list_sessions(limit=200)["data"]}
    finally:
        client.close()


def test_each_profile_lists_only_its_own_sessions(profile_endpoints, login):
    support, sales = profile_endpoints["support"], profile_endpoints["sales"]
    make(support, "prof-support-1", title="Support only")
    make(sales, "prof-sales-1", title="Sales only")
    assert "prof-support-1" in ids(support) and "prof-support-1" not in ids(sales)
    assert "prof-sales-1" in ids(sales) and "prof-sales-1" not in ids(support)
    with pytest.raises(e.NotFound):
        read(sales, "prof-support-1")
    # The same through the dashboard: each endpoint's index and list page.
    index(support)
    index(sales)
    client = login("support")
    on_support = client.get(reverse("session_list", kwargs={"endpoint": "support"}))
    on_sales = client.get(reverse("session_list", kwargs={"endpoint": "sales"}))
    assert "Support only" in on_support.content.decode()
    assert "Support only" not in on_sales.content.decode()
    assert "Sales only" in on_sales.content.decode()


def test_a_session_created_through_one_profile_is_invisible_to_the_other(profile_endpoints, login):
    client = login("reviewer")
    page = client.get(reverse("session_create", kwargs={"endpoint": "sales"}))
    fields = {"session_id": "prof-made-in-sales", "title": "Made in sales", "model": ""}
    answer = client.post(
        reverse("session_create", kwargs={"endpoint": "sales"}),
        {"key": form_key(page.content.decode()), "system_prompt": "", **fields},
    )
    assert answer.status_code == 302
    assert read(profile_endpoints["sales"], "prof-made-in-sales").title == "Made in sales"
    with pytest.raises(e.NotFound):
        read(profile_endpoints["support"], "prof-made-in-sales")
    missing = client.get(session_url("support", "prof-made-in-sales"))
    assert missing.status_code == 404


def test_a_wrong_key_and_an_unknown_profile_are_refused(profiles_peer, profile_endpoints):
    url = profiles_peer.profile_url("support") + "/api/sessions"
    wrong = httpx.get(url, headers={"Authorization": "Bearer " + "w" * 32}, timeout=10)
    assert wrong.status_code == 401 and wrong.json()["error"]["code"] == "invalid_api_key"
    ghost = Endpoint("ghost", profiles_peer.profile_url("ghost"), profiles_peer.key)
    with pytest.raises(e.HermesError) as refused:
        ids(ghost)
    assert refused.value.status == 404


def test_the_endpoints_page_shows_both_profiles(profile_endpoints, login):
    cache.clear()
    html = login("support").get(reverse("endpoint_list")).content.decode()
    for name in ("support", "sales"):
        row = re.search(rf'<tr id="endpoint-{name}".*?</tr>', html, re.S).group(0)
        assert f'data-profile="{name}"' in row and f"Hermes profile <code>{name}</code>" in row
        # /health and /v1/capabilities were asked under the profile's prefix.
        assert 'data-reachable="yes"' in row and "0.19.0" in row and "accepted" in row


def run_verify(*args) -> str:
    out = io.StringIO()
    call_command("verify_endpoint", *args, stdout=out)
    return out.getvalue()


def test_verification_checks_that_the_profile_is_served(profile_endpoints, users):
    out = run_verify("sales", "--user", "admin", "--yes")
    assert "2. PASS" in out and "7. WAIT" in out
    step = VerificationReport.objects.get().steps[1]
    assert step["evidence"]["profile"] == "sales"
    assert step["evidence"]["unknown_profile_status"] == 404


def test_verification_fails_where_the_server_ignores_the_profile(settings, hermes_peer, users):
    plain = endpoint_for(settings, hermes_peer)
    settings.HERMES_ENDPOINTS = {
        "local": Endpoint("local", plain.base_url + "/p/support", plain.api_key)
    }
    out = io.StringIO()
    with pytest.raises(CommandError):
        call_command("verify_endpoint", "local", "--user", "admin", "--yes", stdout=out)
    assert "2. FAIL" in out.getvalue()
    assert "the server serves profile support on its own" in out.getvalue()


def test_every_request_stays_under_the_profile_prefix():
    """/health, /v1/capabilities and the session routes all keep ``/p/<profile>``."""
    paths = []

    def handler(request: httpx.Request) -> httpx.Response:
        paths.append(request.url.path)
        if request.url.path.endswith("/health"):
            return httpx.Response(200, json={"status": "ok", "version": "0.19.0"})
        if request.url.path.endswith("/capabilities"):
            return httpx.Response(200, json={"features": {}, "endpoints": {}})
        return httpx.Response(200, json={"object": "list", "data": [], "has_more": False})

    endpoint = Endpoint("support", "http://hermes.test:8642/p/support/", "k" * 24)
    client = HermesClient(endpoint, transport=httpx.MockTransport(handler))
    try:
        client.health()
        client.capabilities()
        client.list_sessions(limit=1)
    finally:
        client.close()
    assert paths == [
        "/p/support/health",
        "/p/support/v1/capabilities",
        "/p/support/api/sessions",
    ]
    assert endpoint.profile == "support"
    assert Endpoint("x", "http://hermes.test:8642", "k" * 24).profile == ""
