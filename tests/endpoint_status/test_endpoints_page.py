"""The endpoints page probes every endpoint at once; one that is down breaks nothing.

Probes are throttled: views within ``HERMES_PROBE_CACHE_SECONDS`` share one
round of probes and write nothing; "Probe now" (a POST) asks again and
records the answers that gate features.
"""

import re
import time

import httpx
import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from hermes_ui.endpoint_status import capabilities
from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.hermes.client import use_transport
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import switch_url
from tests.conftest import TEST_KEY
from tests.support.peers import index, make
from tests.support.samples import response

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def no_cached_probes():
    """Each test starts without probe answers kept by an earlier one (process memory)."""
    cache.clear()
    yield
    cache.clear()


def row(html: str, endpoint_id: str) -> str:
    match = re.search(rf'<tr id="endpoint-{endpoint_id}".*?</tr>', html, re.S)
    assert match, f"no row for {endpoint_id}"
    return match.group(0)


@pytest.mark.peer
def test_the_page_shows_each_peer_and_the_one_that_is_down(with_down, endpoints, login, settings):
    settings.HERMES_PROBE_TIMEOUT = 2.0
    make(endpoints["a"], "probe-a-1")
    index(endpoints["a"])
    answer = login("support").get(reverse("endpoint_list"))
    assert answer.status_code == 200
    html = answer.content.decode()
    for endpoint_id in ("a", "b"):
        up = row(html, endpoint_id)
        assert 'data-reachable="yes"' in up and "0.19.0" in up and "accepted" in up
        assert "All nine session operations reported." in up
    assert re.search(r'class="num">\s*[1-9]', row(html, "a"))  # counted from a's index
    down = row(html, "down")
    assert 'data-reachable="no"' in down and "unreachable" in down and "0.19.0" not in down
    # Viewing records nothing; "Probe now" records the answers for gating, each
    # under its own server's identity.
    assert not EndpointProbe.objects.exists()
    assert login("support").post(reverse("endpoint_probe")).status_code == 302
    probe = EndpointProbe.objects.get(endpoint="a")
    assert probe.features["session_chat_streaming"] is True and probe.key_accepted
    assert not EndpointProbe.objects.get(endpoint="down").reachable


@pytest.mark.peer
def test_a_wrong_key_is_reported_as_refused(settings, two_peers, login):
    from hermes_ui.platform.endpoints import Endpoint

    peer_a, _ = two_peers
    settings.HERMES_ENDPOINTS = {"a": Endpoint("a", peer_a.base_url, "wrong-key-0123456789")}
    html = login("support").get(reverse("endpoint_list")).content.decode()
    assert "<strong>refused</strong>" in row(html, "a") and "invalid_api_key" in row(html, "a")


def _caps_without_streaming(request: httpx.Request) -> httpx.Response:
    path = request.url.path
    if path == "/v1/capabilities":
        payload = response("144_capabilities")
        body = payload.json()
        body["features"].pop("session_chat_streaming")
        return httpx.Response(200, json=body)
    if path == "/health":
        return response("004_health")
    if path.endswith("/messages"):
        return response("090_messages")
    if path == "/api/sessions":
        return response("120_list")
    return response("030_get")


def test_the_chat_box_follows_the_reported_capability(mock_endpoint, login):
    client = login("support")
    with use_transport(httpx.MockTransport(_caps_without_streaming)):
        assert capabilities.offers(mock_endpoint, capabilities.STREAMING)  # never asked yet
        page = client.get("/e/local/sessions/peer-demo/").content.decode()
        assert 'id="chat-open"' in page  # the form is offered (it opens on demand)
        client.get(reverse("endpoint_list"))  # a view records nothing
        assert capabilities.offers(mock_endpoint, capabilities.STREAMING)
        client.post(reverse("endpoint_probe"))
        assert not capabilities.offers(mock_endpoint, capabilities.STREAMING)
        page = client.get("/e/local/sessions/peer-demo/").content.decode()
    assert 'id="chat-unsupported"' in page and 'id="chat-open"' not in page
    form_page = client.get("/e/local/chat/peer-demo/").content.decode()
    assert 'id="chat-unsupported"' in form_page and 'id="chat-form"' not in form_page


@pytest.fixture
def asked(settings):
    """Two endpoints behind a MockTransport that notes every request (host, path)."""
    settings.HERMES_ENDPOINTS = {
        "local": Endpoint("local", "http://hermes.test", TEST_KEY),
        "other": Endpoint("other", "http://other.test", TEST_KEY),
    }
    settings.HERMES_ENDPOINT_ID = "local"
    seen = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append((request.url.host, request.url.path))
        return _caps_without_streaming(request)

    with use_transport(httpx.MockTransport(handler)):
        yield seen


# One round of probes: each endpoint asked /health and /v1/capabilities once.
ROUND = sorted(
    (host, path)
    for host in ("hermes.test", "other.test")
    for path in ("/health", "/v1/capabilities")
)
WRITES = ("INSERT", "UPDATE", "DELETE", "REPLACE")


def test_views_within_the_window_share_one_round_of_probes(asked, login, settings):
    settings.HERMES_PROBE_CACHE_SECONDS = 30
    browser = login("support")
    assert browser.get(reverse("endpoint_list")).status_code == 200
    assert sorted(asked) == ROUND  # one round: each endpoint asked once
    second = login("reviewer").get(reverse("endpoint_list"))  # anyone, within the window
    assert sorted(asked) == ROUND
    assert 'data-reachable="yes"' in row(second.content.decode(), "other")  # the kept answer


def test_after_the_window_a_view_asks_again(asked, login, settings):
    settings.HERMES_PROBE_CACHE_SECONDS = 1
    browser = login("support")
    browser.get(reverse("endpoint_list"))
    assert len(asked) == 4
    deadline = time.monotonic() + 10
    while len(asked) == 4 and time.monotonic() < deadline:
        browser.get(reverse("endpoint_list"))
        time.sleep(0.2)
    assert sorted(asked) == sorted(ROUND * 2)


def test_a_view_writes_nothing(asked, login):
    browser = login("support")
    with CaptureQueriesContext(connection) as queries:
        assert browser.get(reverse("endpoint_list")).status_code == 200
    sql = [q["sql"].lstrip().upper() for q in queries.captured_queries]
    writes = [statement for statement in sql if statement.startswith(WRITES)]
    assert asked and writes == []
    assert not EndpointProbe.objects.exists()


@pytest.mark.parametrize("htmx", [False, True])
def test_probe_now_asks_every_endpoint_again_and_records_the_answers(asked, login, htmx):
    browser = login("support")
    browser.get(reverse("endpoint_list"))
    assert sorted(asked) == ROUND
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    answer = browser.post(reverse("endpoint_probe"), **extra)
    assert sorted(asked) == sorted(ROUND * 2)  # within the window, asked again
    if htmx:  # the refreshed table, for htmx to swap in
        assert answer.status_code == 200
        assert 'id="endpoint-status"' in answer.content.decode()
    else:  # back to the page, which shows the fresh answers without asking again
        assert answer.status_code == 302 and answer["Location"] == reverse("endpoint_list")
        browser.get(answer["Location"])
        assert sorted(asked) == sorted(ROUND * 2)
    recorded = {p.endpoint: p for p in EndpointProbe.objects.all()}
    assert set(recorded) == {"local", "other"}
    for probe in recorded.values():
        assert probe.key_accepted and "session_chat_streaming" not in probe.features


def test_probe_now_needs_the_csrf_token(asked, users):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(users["support"])
    assert browser.post(reverse("endpoint_probe")).status_code == 403
    assert asked == [] and not EndpointProbe.objects.exists()
    page = browser.get(reverse("endpoint_list")).content.decode()
    form = re.search(r'<form[^>]*id="probe-now".*?</form>', page, re.S).group(0)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    answer = browser.post(reverse("endpoint_probe"), {"csrfmiddlewaretoken": token})
    assert answer.status_code == 302 and EndpointProbe.objects.count() == 2


class _Match:
    def __init__(self, name, **kwargs):
        self.url_name, self.kwargs = name, kwargs


def test_the_top_bar_keeps_the_kind_of_page(mock_endpoint):
    assert switch_url(_Match("usage", endpoint="a"), "b") == "/e/b/usage/"
    assert switch_url(_Match("session_list", endpoint="a"), "b") == "/e/b/sessions/"
    # A session page (or any page about one session) goes to the other endpoint's list.
    assert switch_url(_Match("session_detail", endpoint="a", session_id="x"), "b") == (
        "/e/b/sessions/"
    )
    assert switch_url(_Match("deletion_queue"), "b") == "/e/b/sessions/"


def _caps_without_session_key(request: httpx.Request) -> httpx.Response:
    if request.url.path == "/v1/capabilities":
        body = response("144_capabilities").json()
        body["features"].pop("session_key_header")
        return httpx.Response(200, json=body)
    return _caps_without_streaming(request)


def test_the_memory_scope_field_follows_the_reported_header(mock_endpoint, login):
    client = login("support")
    with use_transport(httpx.MockTransport(_caps_without_session_key)):
        page = client.get("/e/local/chat/peer-demo/").content.decode()  # the form's page
        assert 'name="session_key"' in page  # never asked: the contract's fields
        client.post(reverse("endpoint_probe"))
        page = client.get("/e/local/chat/peer-demo/").content.decode()
    assert 'name="session_key"' not in page and 'name="system_message"' in page
