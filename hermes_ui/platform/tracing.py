"""OpenTelemetry traces, off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

A page's span (``page_span``, first in ``settings.MIDDLEWARE``) has a span per
Hermes call below it (``hermes_call``: the endpoint, the operation, the method,
the URL cut to its route, the status), and the call carries the trace on to
Hermes (``traceparent``). Both are made here rather than by OpenTelemetry's
Django and httpx instrumentations: in the benchmark those cost 0.5 to 0.8 ms
of CPU per page whether or not the page was sampled (per-request attribute
collection, a second URL resolution, metrics and header handling for
attributes we then overwrote; docs/development/benchmarks.md). URLs in span
attributes are the URL pattern (pages) or the route with ``{id}`` (Hermes
calls): a session id, a title in a query string or search text never leaves.
The exporter sends OTLP over HTTP; the SDK reads the usual ``OTEL_*`` variables.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager, nullcontext
from http import HTTPMethod
from urllib.parse import urlsplit

from asgiref.sync import iscoroutinefunction
from django.core.exceptions import MiddlewareNotUsed
from django.utils.decorators import sync_and_async_middleware
from opentelemetry import context, propagate, trace

_NOTHING = nullcontext(trace.INVALID_SPAN)  # its set_attribute does nothing
_tracer = None

# Hermes' routes: the segment after /api/sessions/ is a session id.
_SESSION = re.compile(r"(/api/sessions)/[^/]+")
_HERMES_PATHS = re.compile(r"^(/.*)?(/health|/v1/capabilities|/api/sessions(/\{id\}(/[a-z/]+)?)?)$")


def enabled() -> bool:
    return bool(
        os.environ.get("OTEL_EXPORTER_OTLP_ENDPOINT")
        or os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
    )


def setup() -> bool:
    """Export spans of pages and Hermes calls when an OTLP endpoint is configured.

    Called by the ASGI and WSGI entry points before Django loads its middleware:
    ``page_span`` stays out of the chain unless tracing is on.
    """
    global _tracer
    if _tracer is not None or not enabled():
        return _tracer is not None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    service = os.environ.get("OTEL_SERVICE_NAME") or "hermes-ui"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    _tracer = provider.get_tracer("hermes_ui")
    return True


def hermes_call(endpoint_id: str, operation: str, request):
    """The span of one Hermes call (``request``: the httpx request about to be sent);
    a span that records nothing while tracing is off. Set the status on it."""
    if _tracer is None:
        return _NOTHING
    return _call_span(endpoint_id, operation, request)


@contextmanager
def _call_span(endpoint_id: str, operation: str, request):
    span = _tracer.start_span(  # type: ignore[union-attr]
        f"hermes {operation}", kind=trace.SpanKind.CLIENT, record_exception=False
    )
    # Hermes learns the trace (and that it was not sampled) either way.
    propagate.inject(request.headers, context=trace.set_span_in_context(span))
    recording = span.is_recording()
    if recording:  # an unsampled call's attributes would be thrown away
        span.set_attributes(
            {
                "hermes.endpoint": endpoint_id,
                "hermes.operation": operation,
                "http.request.method": request.method,
                "url.full": scrubbed_url(str(request.url)),
            }
        )
    try:
        yield span
    except BaseException as error:
        if recording:  # an exception's message may quote what Hermes sent: its type only
            span.set_attribute("error.type", type(error).__name__)
            span.set_status(trace.StatusCode.ERROR)
        raise
    finally:
        span.end()


def route_of(request) -> str:
    """The URL pattern a request matched ("unmatched" without one), never its path."""
    match = getattr(request, "resolver_match", None)
    return "/" + match.route if match is not None and match.route else "unmatched"


def scrubbed_url(url: str) -> str:
    """An outgoing URL without its query, and with a session id replaced by ``{id}``;
    any other path (a webhook's, which may hold a secret) becomes ``/{path}``."""
    parts = urlsplit(url)
    path = _SESSION.sub(r"\1/{id}", parts.path)
    if not _HERMES_PATHS.match(path):
        path = "/{path}"
    return f"{parts.scheme}://{parts.netloc}{path}"


# Methods a span name may carry (the standard ones); any other (the client chose it)
# is named "HTTP".
_METHODS = frozenset(method.value for method in HTTPMethod)


class _MetaGetter:
    """Reads ``traceparent`` (and ``tracestate``) from a Django request's ``META``."""

    def get(self, carrier, key: str):
        found = carrier.get("HTTP_" + key.upper().replace("-", "_"))
        return [found] if found is not None else None

    def keys(self, carrier):
        return [k[5:].lower().replace("_", "-") for k in carrier if k.startswith("HTTP_")]


_META = _MetaGetter()


@sync_and_async_middleware
def page_span(get_response):
    """The server span of each request, the parent of its Hermes calls' spans.

    Instead of OpenTelemetry's Django instrumentation, which cost 0.5 to 0.8 ms
    of CPU per page, sampled or not (docs/development/benchmarks.md): the
    sampler decides first, and only a recorded span gets its name and four
    attributes, from the ``resolver_match`` Django already made.
    """
    if _tracer is None:
        raise MiddlewareNotUsed("tracing is off")

    if iscoroutinefunction(get_response):

        async def middleware(request):
            span, token = _page_started(request)
            try:
                response = await get_response(request)
            except BaseException:
                _page_ended(span, token, request, None)
                raise
            _page_ended(span, token, request, response)
            return response

    else:

        def middleware(request):  # type: ignore[misc]
            span, token = _page_started(request)
            try:
                response = get_response(request)
            except BaseException:
                _page_ended(span, token, request, None)
                raise
            _page_ended(span, token, request, response)
            return response

    return middleware


def _page_started(request):
    # A trace passed on by a proxy in front is continued; without one, nothing to read.
    parent = (
        propagate.extract(request.META, getter=_META)
        if "HTTP_TRACEPARENT" in request.META
        else None
    )
    span = _tracer.start_span(
        request.method if request.method in _METHODS else "HTTP",
        context=parent,
        kind=trace.SpanKind.SERVER,
        record_exception=False,
        set_status_on_exception=False,
    )
    return span, context.attach(trace.set_span_in_context(span, parent))


def _page_ended(span, token, request, response) -> None:
    """Name and describe a recorded span (an unsampled one is only ended), then end it."""
    try:
        if span.is_recording():
            status = 500 if response is None else response.status_code
            route = route_of(request)
            attributes = {"http.method": span.name, "http.url": route, "http.status_code": status}
            if route != "unmatched":
                attributes["http.route"] = route[1:]
                span.update_name(f"{span.name} {route[1:]}")
            span.set_attributes(attributes)
            if status >= 500:
                span.set_status(trace.StatusCode.ERROR)
        span.end()
    finally:
        context.detach(token)
