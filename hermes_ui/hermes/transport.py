"""httpx's transport, with every socket operation of a call bounded by the call's deadline.

httpx's timeouts are per socket operation, and httpcore takes the read
timeout once per response: a Hermes that sends its status line and headers
one byte every couple of seconds never lets one read time out, so a page's
call would wait for as long as the trickle lasts (minutes), whatever its
deadline. Here each connect, read and write is given at most what is left
before the deadline of the call running in this thread (``until``), and
fails as a timeout once it has passed.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator
from contextvars import ContextVar

import httpcore
import httpx

_ends_at: ContextVar[float | None] = ContextVar("hermes_call_ends_at", default=None)


@contextlib.contextmanager
def until(ends_at: float) -> Iterator[None]:
    """Socket operations in the block end by the monotonic time ``ends_at``."""
    token = _ends_at.set(ends_at)
    try:
        yield
    finally:
        _ends_at.reset(token)


def _left(timeout: float | None, late: type[Exception]) -> float | None:
    ends_at = _ends_at.get()
    if ends_at is None:
        return timeout
    left = ends_at - time.monotonic()
    if left <= 0:
        raise late("the call's deadline has passed")
    return left if timeout is None else min(timeout, left)


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        return self._stream.read(max_bytes, _left(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> httpcore.NetworkStream:
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._stream.start_tls(ssl_context, server_hostname, left))

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self):
        self._backend = httpcore.SyncBackend()

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._backend.connect_tcp(host, port, left, local_address, socket_options))

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        left = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._backend.connect_unix_socket(path, left, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


class DeadlineTransport(httpx.HTTPTransport):
    """What ``httpx.Client()`` uses by default (TLS, limits), on a backend that keeps deadlines.

    Only the connection pool differs, so ``__init__`` builds that alone: the
    parent's would create a TLS context (tens of milliseconds) to throw away.
    """

    def __init__(self):
        limits = httpx.Limits(max_connections=100, max_keepalive_connections=20)
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(trust_env=True),
            max_connections=limits.max_connections,
            max_keepalive_connections=limits.max_keepalive_connections,
            keepalive_expiry=limits.keepalive_expiry,
            network_backend=_Backend(),
        )
