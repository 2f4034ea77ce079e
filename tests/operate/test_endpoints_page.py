"""The endpoints page probes every endpoint at once; one that is down breaks nothing."""

import re

import httpx
import pytest
from django.urls import reverse

from hermes_ui.endpoint_status import capabilities
from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.hermes.client import use_transport
from hermes_ui.web.links import switch_url
from tests.operate.conftest import index, make
from tests.samples import response

pytestmark = pytest.mark.django_db


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
    # The answers are kept for gating, each under its own server's identity.
    probe = EndpointProbe.objects.get(endpoint="a")
    assert probe.features["session_chat_streaming"] is True and probe.key_accepted
    assert not EndpointProbe.objects.get(endpoint="down").reachable


@pytest.mark.peer
def test_a_wrong_key_is_reported_as_refused(settings, two_peers, login):
    from hermes_ui.endpoints import Endpoint

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
        assert 'id="chat-form"' in page
        client.get(reverse("endpoint_list"))
        assert not capabilities.offers(mock_endpoint, capabilities.STREAMING)
        page = client.get("/e/local/sessions/peer-demo/").content.decode()
    assert 'id="chat-unsupported"' in page and 'id="chat-form"' not in page


class _Match:
    def __init__(self, name, **kwargs):
        self.url_name, self.kwargs = name, kwargs


def test_the_top_bar_keeps_the_kind_of_page(mock_endpoint):
    assert switch_url(_Match("index_list", endpoint="a"), "b") == "/e/b/index/"
    assert switch_url(_Match("session_list", endpoint="a"), "b") == "/e/b/sessions/"
    # A session page (or any page about one session) goes to the other endpoint's list.
    assert switch_url(_Match("session_detail", endpoint="a", session_id="x"), "b") == (
        "/e/b/sessions/"
    )
    assert switch_url(_Match("deletion_queue"), "b") == "/e/b/sessions/"
