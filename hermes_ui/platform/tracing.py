"""OpenTelemetry traces, off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

A page's span (the Django instrumentation) has a span per Hermes call below it
(``hermes_call``: the endpoint, the operation, the method, the URL cut to its
route, the status), and the call carries the trace on to Hermes (``traceparent``).
The Hermes client makes that span itself instead of using the httpx
instrumentation, which cost a tenth of the session page's CPU in the benchmark
(docs/development/benchmarks.md): its per-call header and URL handling, for
attributes we then overwrite. URLs in span attributes are the URL pattern
(pages) or the route with ``{id}`` (Hermes calls): a session id, a title in a
query string or search text never leaves. The exporter sends OTLP over HTTP;
the SDK reads the usual ``OTEL_*`` variables.
"""

from __future__ import annotations

import os
import re
from contextlib import contextmanager, nullcontext
from urllib.parse import urlsplit

from opentelemetry import propagate, trace

# Where the Django instrumentation puts a URL (HTTP semantic conventions, old and stable).
_PAGE_URLS = ("http.target", "http.url", "url.path", "url.full")
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
    the Django instrumentation adds its own to ``settings.MIDDLEWARE``.
    """
    global _tracer
    if _tracer is not None or not enabled():
        return _tracer is not None
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    service = os.environ.get("OTEL_SERVICE_NAME") or "hermes-ui"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    DjangoInstrumentor().instrument(tracer_provider=provider, response_hook=_page_answered)
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
    attributes = {
        "hermes.endpoint": endpoint_id,
        "hermes.operation": operation,
        "http.request.method": request.method,
        "url.full": scrubbed_url(str(request.url)),
    }
    with _tracer.start_as_current_span(  # type: ignore[union-attr]
        f"hermes {operation}",
        kind=trace.SpanKind.CLIENT,
        attributes=attributes,
        # An exception's message may quote what Hermes sent: its type only.
        record_exception=False,
        set_status_on_exception=False,
    ) as span:
        propagate.inject(request.headers)
        try:
            yield span
        except BaseException as error:
            span.set_attribute("error.type", type(error).__name__)
            span.set_status(trace.StatusCode.ERROR)
            raise


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


def _page_answered(span, request, response) -> None:
    """The Django instrumentation's hook: the page's URL attributes become its route."""
    present = getattr(span, "attributes", None) or {}
    route = route_of(request)
    for key, value in (dict.fromkeys(_PAGE_URLS, route) | {"url.query": ""}).items():
        if key in present:
            span.set_attribute(key, value)
