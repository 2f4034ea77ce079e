"""OpenTelemetry traces over OTLP/HTTP to a receiver on loopback: a session page's span
has its Hermes calls as children (endpoint and operation named, URL cut to the route),
and no attribute anywhere holds the session's id, its title or the query."""

import secrets
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.platform.tracing import scrubbed_url
from hermes_ui.web.links import session_url
from tests.changes.conftest import http_login
from tests.support.browser import DashboardServer
from tests.support.waiting import until

pytestmark = pytest.mark.peer


class Receiver:
    """An OTLP/HTTP trace receiver: every span it was sent, with its resource's attributes."""

    def __init__(self):
        self.spans: list = []
        self.resources: list = []
        received = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers["Content-Length"]))
                request = ExportTraceServiceRequest.FromString(body)
                for batch in request.resource_spans:
                    received.resources.append(batch.resource)
                    for scope in batch.scope_spans:
                        received.spans.extend(scope.spans)
                self.send_response(200)
                self.send_header("Content-Type", "application/x-protobuf")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def stop(self):
        self.server.shutdown()


def attributes(span) -> dict:
    return {a.key: a.value.string_value or a.value.int_value for a in span.attributes}


def every_value(receiver: Receiver) -> list[str]:
    """Every attribute value, span name and event of every span and resource, as text."""
    found = []
    for span in receiver.spans:
        found.append(span.name)
        found.extend(str(a.value) for a in span.attributes)
        for event in span.events:
            found.append(event.name)
            found.extend(str(a.value) for a in event.attributes)
    for resource in receiver.resources:
        found.extend(str(a.value) for a in resource.attributes)
    return found


@pytest.fixture
def receiver():
    found = Receiver()
    yield found
    found.stop()


def test_a_pages_span_has_its_hermes_calls_as_children_without_the_canary(
    tmp_path, fresh_peer, receiver
):
    canary = f"canary{secrets.token_hex(6)}"
    peer = HermesClient(Endpoint("local", fresh_peer.base_url, fresh_peer.key))
    session_id = f"{canary}-session"
    peer.create_session(idempotency_key=mint_key(), session_id=session_id, title=f"{canary} t")
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": receiver.url, "OTEL_BSP_SCHEDULE_DELAY": "100"}
    server = DashboardServer(tmp_path / "data", fresh_peer, env).start()
    try:
        with httpx.Client(base_url=server.base_url, timeout=60) as http:
            http_login(http, "support")
            page = http.get(session_url("local", session_id) + f"?q={canary}")
            assert page.status_code == 200 and canary in page.text

        def page_span():
            route = "/e/<str:endpoint>/sessions/<path:session_id>/"
            found = [s for s in receiver.spans if attributes(s).get("http.route") == route[1:]]
            return found[0] if found else None

        span = until(page_span, 60, "no span of the session page arrived")
        calls = {}

        def children_arrived():
            calls.update((s.span_id, s) for s in receiver.spans if s.parent_span_id == span.span_id)
            names = {s.name for s in calls.values()}
            return {"hermes session_get", "hermes session_messages"} <= names

        until(children_arrived, 30, "the page's Hermes calls are not its children")
        get = next(s for s in calls.values() if s.name == "hermes session_get")
        assert attributes(get)["hermes.endpoint"] == "local"
        assert attributes(get)["hermes.operation"] == "session_get"
        assert attributes(get)["url.full"] == f"{fresh_peer.base_url}/api/sessions/{{id}}"
        assert attributes(get)["http.response.status_code"] == 200
        assert span.trace_id == get.trace_id
        messages = [s for s in calls.values() if s.name == "hermes session_messages"]
        assert [attributes(s)["url.full"] for s in messages] == [
            f"{fresh_peer.base_url}/api/sessions/{{id}}/messages"
        ]
        assert attributes(span)["http.url"] == "/e/<str:endpoint>/sessions/<path:session_id>/"
        leaked = [value for value in every_value(receiver) if canary in value]
        assert leaked == []
    finally:
        server.stop()


@pytest.mark.parametrize(
    ("url", "scrubbed"),
    [
        ("http://h:8642/api/sessions/abc/messages?x=1", "http://h:8642/api/sessions/{id}/messages"),
        ("http://h/prefix/api/sessions/a%2Fb", "http://h/prefix/api/sessions/{id}"),
        ("http://h/api/sessions?limit=50&q=secret", "http://h/api/sessions"),
        ("http://h/health", "http://h/health"),
        ("https://hooks.example/T0/B1/secret-token", "https://hooks.example/{path}"),
    ],
)
def test_outgoing_urls_keep_the_route_only(url, scrubbed):
    assert scrubbed_url(url) == scrubbed
