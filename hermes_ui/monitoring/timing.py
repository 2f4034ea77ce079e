"""Request latency by URL pattern name and status class, for ``/metrics``."""

from __future__ import annotations

import time

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.utils.decorators import sync_and_async_middleware

from hermes_ui.platform.metrics import REQUEST_SECONDS


def view_label(request) -> str:
    """The URL pattern's name: a bounded set, never the path with its ids."""
    match = getattr(request, "resolver_match", None)
    if match is not None:
        return match.view_name or "unnamed"
    return "static" if request.path.startswith(settings.STATIC_URL) else "unmatched"


# (view, status class) -> its histogram child: ``labels()`` validates and locks on every
# call; the pairs are bounded by the URL patterns.
_children: dict = {}


def _observe(request, response, started: float) -> None:
    key = (view_label(request), response.status_code // 100)
    child = _children.get(key)
    if child is None:
        child = _children[key] = REQUEST_SECONDS.labels(key[0], f"{key[1]}xx")
    child.observe(time.perf_counter() - started)


@sync_and_async_middleware
def request_timing(get_response):
    """Times each request until its response is ready (a stream's first byte)."""

    if iscoroutinefunction(get_response):

        async def middleware(request):
            started = time.perf_counter()
            response = await get_response(request)
            _observe(request, response, started)
            return response

    else:

        def middleware(request):  # type: ignore[misc]
            started = time.perf_counter()
            response = get_response(request)
            _observe(request, response, started)
            return response

    return middleware
