"""The page span and the Hermes call spans in one process (an in-memory exporter): what a
sampled page records, that an unsampled one records and computes nothing yet still tells
Hermes the trace, and that with tracing off the page span is not in the chain at all."""

import asyncio

import httpx
import pytest
from asgiref.sync import iscoroutinefunction
from django.core.exceptions import MiddlewareNotUsed
from django.test import RequestFactory
from django.urls import resolve
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.sdk.trace.sampling import ALWAYS_OFF, ALWAYS_ON, ParentBased
from opentelemetry.trace import SpanKind, StatusCode

from hermes_ui.platform import tracing
from hermes_ui.web.links import session_url

ROUTE = "e/<str:endpoint>/sessions/<path:session_id>/"
HERMES = "http://hermes:8642/api/sessions/secret-id/messages?q=secret"
PARENT = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"


@pytest.fixture
def spans(monkeypatch):
    """Tracing on, every page sampled: yields a function that sets the sampler, and the
    finished spans' list."""
    exporter = InMemorySpanExporter()

    def traced(sampler=ALWAYS_ON):
        provider = TracerProvider(sampler=sampler)
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        monkeypatch.setattr(tracing, "_tracer", provider.get_tracer("test"))
        return exporter.get_finished_spans

    return traced


def page(status=200, raises=None):
    """A page's middleware chain: the page span around a view that calls Hermes once."""
    sent = []

    def view(request):
        request.resolver_match = resolve(request.path)
        call = httpx.Request("GET", HERMES)
        with tracing.hermes_call("local", "session_messages", call) as span:
            span.set_attribute("http.response.status_code", 200)
        sent.append(call)
        if raises:
            raise raises
        return type("Answer", (), {"status_code": status})()

    return tracing.page_span(view), sent


def get(**headers):
    return RequestFactory().get(session_url("local", "secret-id") + "?q=secret", **headers)


def test_a_sampled_page_is_the_parent_of_its_hermes_call_and_holds_only_its_route(spans):
    finished = spans()
    middleware, sent = page()
    assert middleware(get()).status_code == 200
    call, server = finished()
    assert server.name == f"GET {ROUTE}" and server.kind == SpanKind.SERVER
    assert dict(server.attributes) == {
        "http.method": "GET",
        "http.route": ROUTE,
        "http.url": "/" + ROUTE,
        "http.status_code": 200,
    }
    assert call.parent.span_id == server.context.span_id
    assert call.context.trace_id == server.context.trace_id
    assert call.name == "hermes session_messages" and call.kind == SpanKind.CLIENT
    assert call.attributes["url.full"] == "http://hermes:8642/api/sessions/{id}/messages"
    assert call.attributes["http.response.status_code"] == 200
    _, trace_id, span_id, flags = sent[0].headers["traceparent"].split("-")
    assert (trace_id, span_id) == (f"{call.context.trace_id:032x}", f"{call.context.span_id:016x}")
    assert int(flags, 16) & 1  # sampled


def test_an_unsampled_page_records_nothing_and_still_tells_hermes(spans, monkeypatch):
    finished = spans(ParentBased(ALWAYS_OFF))

    def not_for_an_unsampled_call(url):
        raise AssertionError("an unsampled call's URL was scrubbed")

    monkeypatch.setattr(tracing, "scrubbed_url", not_for_an_unsampled_call)
    middleware, sent = page()
    assert middleware(get()).status_code == 200
    assert finished() == ()
    assert not int(sent[0].headers["traceparent"].split("-")[3], 16) & 1  # not sampled


def test_a_trace_passed_on_by_a_proxy_is_continued(spans):
    finished = spans(ParentBased(ALWAYS_OFF))  # the parent's "sampled" decides
    middleware, sent = page()
    middleware(get(HTTP_TRACEPARENT=PARENT))
    _call, server = finished()
    assert f"{server.context.trace_id:032x}" == PARENT.split("-")[1]
    assert f"{server.parent.span_id:016x}" == PARENT.split("-")[2]
    assert sent[0].headers["traceparent"].split("-")[1] == PARENT.split("-")[1]


def test_a_failed_page_is_an_error_and_leaves_no_span_current(spans):
    finished = spans()
    middleware, _ = page(raises=RuntimeError("what Hermes said"))
    with pytest.raises(RuntimeError):
        middleware(get())
    _call, server = finished()
    assert server.status.status_code == StatusCode.ERROR
    assert server.attributes["http.status_code"] == 500
    assert not tracing.trace.get_current_span().get_span_context().is_valid
    answered, _ = page(status=503)
    answered(get())
    assert finished()[-1].status.status_code == StatusCode.ERROR


def test_with_tracing_off_the_page_span_is_not_in_the_chain(monkeypatch):
    monkeypatch.setattr(tracing, "_tracer", None)
    with pytest.raises(MiddlewareNotUsed):
        tracing.page_span(lambda request: None)


def test_a_stream_has_its_page_span_too(spans):
    finished = spans()

    async def view(request):
        request.resolver_match = resolve(request.path)
        return type("Answer", (), {"status_code": 200})()

    middleware = tracing.page_span(view)
    assert iscoroutinefunction(middleware)
    asyncio.run(middleware(get()))
    (server,) = finished()
    assert server.name == f"GET {ROUTE}"
    assert server.attributes["http.status_code"] == 200
