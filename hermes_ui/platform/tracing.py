"""OpenTelemetry traces, off unless ``OTEL_EXPORTER_OTLP_ENDPOINT`` is set.

A page's span (the Django instrumentation) has a span per Hermes call below it:
the httpx instrumentation's, named ``hermes <operation>`` with the endpoint and
the operation from the mark the client puts on each request (one span per call,
not a second one around it: spans are what tracing costs). URLs in span attributes are cut down to
the URL pattern (pages) or to the route with ``{id}`` for the session (Hermes
calls): a session id, a title in a query string or search text never leaves.
The exporter sends OTLP over HTTP; the SDK reads the usual ``OTEL_*`` variables.
"""

from __future__ import annotations

import os
import re
from urllib.parse import urlsplit

# The Hermes client marks its requests with (endpoint id, operation) under this key.
CALL = "hermes_ui.call"
# Where the instrumentations put a URL (HTTP semantic conventions, old and stable names).
_PAGE_URLS = ("http.target", "http.url", "url.path", "url.full")
_CALL_URLS = ("http.url", "url.full")
_provider = None

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
    global _provider
    if _provider is not None or not enabled():
        return _provider is not None
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.django import DjangoInstrumentor
    from opentelemetry.instrumentation.httpx import HTTPXClientInstrumentor
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    service = os.environ.get("OTEL_SERVICE_NAME") or "hermes-ui"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    DjangoInstrumentor().instrument(tracer_provider=provider, response_hook=_page_answered)
    HTTPXClientInstrumentor().instrument(
        tracer_provider=provider, request_hook=_call_sent, async_request_hook=_async_call_sent
    )
    _provider = provider
    return True


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


def _replace(span, values: dict) -> None:
    """Overwrite those of ``values``' keys the span has (the old or the stable HTTP names)."""
    present = getattr(span, "attributes", None) or {}
    for key, value in values.items():
        if key in present:
            span.set_attribute(key, value)


def _page_answered(span, request, response) -> None:
    route = route_of(request)
    _replace(span, dict.fromkeys(_PAGE_URLS, route) | {"url.query": ""})


def _call_sent(span, request) -> None:
    _replace(span, dict.fromkeys(_CALL_URLS, scrubbed_url(str(request.url))))
    call = (request.extensions or {}).get(CALL)
    if call is not None:
        endpoint_id, operation = call
        span.update_name(f"hermes {operation}")
        span.set_attribute("hermes.endpoint", endpoint_id)
        span.set_attribute("hermes.operation", operation)


async def _async_call_sent(span, request) -> None:
    _call_sent(span, request)
