"""A request id for every request: in each log record of it and in its answer.

A proxy's ``X-Request-ID`` is kept when it is a short, plain token (so one id
follows a request through the proxy's log and ours); anything else is replaced
by a fresh id, since the value ends up in every log line of the request.
"""

from __future__ import annotations

import logging
import re
import secrets
from contextvars import ContextVar

from asgiref.sync import iscoroutinefunction
from django.core.signals import request_finished
from django.dispatch import receiver
from django.utils.decorators import sync_and_async_middleware

HEADER = "X-Request-ID"
_META = "HTTP_X_REQUEST_ID"
_SAFE = re.compile(r"[A-Za-z0-9._-]{8,64}")
_current: ContextVar[str | None] = ContextVar("request_id", default=None)


def current() -> str | None:
    return _current.get()


def chosen(offered: str | None) -> str:
    """The offered id if it is a safe token, else a new one."""
    if offered and _SAFE.fullmatch(offered):
        return offered
    return secrets.token_hex(16)


@sync_and_async_middleware
def request_id_middleware(get_response):
    """Sets the id for the request's log records and returns it in ``X-Request-ID``.

    The id stays set until the request is finished (``forget``), not only while
    the middleware runs: Django logs a 4xx or 5xx answer after the middleware
    chain has returned, and that line needs the id most.
    """

    if iscoroutinefunction(get_response):

        async def middleware(request):
            _current.set(chosen(request.META.get(_META)))
            response = await get_response(request)
            response[HEADER] = _current.get()
            return response

    else:

        def middleware(request):  # type: ignore[misc]
            _current.set(chosen(request.META.get(_META)))
            response = get_response(request)
            response[HEADER] = _current.get()
            return response

    return middleware


@receiver(request_finished)
def forget(**kwargs) -> None:
    """A page thread serves one request after another: the next one's lines are its own."""
    _current.set(None)


class RequestIdFilter(logging.Filter):
    """Puts the current request id (or None outside a request) on every record."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = _current.get()
        return True
