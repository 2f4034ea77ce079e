"""Sockets whose every read and write ends by the deadline of the call using them."""

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
    """Socket operations inside the block end by ``ends_at`` (``time.monotonic``)."""
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


# httpcore asks for 64 KiB a read. A long transcript (~1 MB) is then ~15 reads, and a
# reading thread (the session page reads its messages beside the thread drawing the
# page) waits for the GIL before each, up to the interpreter's switch interval.
# Taking whatever the socket holds, up to this much, makes that a few reads.
READ_BYTES = 1024 * 1024


class _Stream(httpcore.NetworkStream):
    def __init__(self, stream: httpcore.NetworkStream):
        self._stream = stream

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        left = _left(timeout, httpcore.ReadTimeout)
        return self._stream.read(max(max_bytes, READ_BYTES), left)

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._stream.write(buffer, _left(timeout, httpcore.WriteTimeout))

    def close(self) -> None:
        self._stream.close()

    def start_tls(self, ssl_context, server_hostname=None, timeout=None) -> _Stream:
        timeout = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._stream.start_tls(ssl_context, server_hostname, timeout))

    def get_extra_info(self, info: str):
        return self._stream.get_extra_info(info)


class _Backend(httpcore.NetworkBackend):
    def __init__(self, backend: httpcore.NetworkBackend):
        self._backend = backend

    def connect_tcp(self, host, port, timeout=None, local_address=None, socket_options=None):
        timeout = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(
            self._backend.connect_tcp(host, port, timeout, local_address, socket_options)
        )

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        timeout = _left(timeout, httpcore.ConnectTimeout)
        return _Stream(self._backend.connect_unix_socket(path, timeout, socket_options))

    def sleep(self, seconds: float) -> None:
        self._backend.sleep(seconds)


def bound(client: httpx.Client) -> httpx.Client:
    """Make ``client``'s real network transports (not a test's mock) honour ``until``."""
    for transport in (client._transport, *client._mounts.values()):
        pool = getattr(transport, "_pool", None)
        if pool is not None and not isinstance(pool._network_backend, _Backend):
            pool._network_backend = _Backend(pool._network_backend)
    return client
