"""The ASGI application uvicorn serves: Django's own two handlers, side by side.

- **Pages** (every sync view) go to Django's stock WSGI handler, run by
  a2wsgi on a pool of ``HERMES_UI_VIEW_THREADS`` threads per worker: one
  thread hop per page, as under gunicorn's gthread workers, and a request
  body is read to the end (bounded in size and time) in the event loop
  *before* a thread is taken, so a slow or unfinished upload never holds one.
- **Streams** (async views: a chat turn's events, an export's download) go to
  Django's stock ASGI handler, so an open stream holds no thread at all, and
  a browser that goes away cancels it.

Nothing here handles a request itself: it picks one of Django's handlers by
whether the URL's view is a coroutine function, and tells a page when its
browser has gone away (``hermes_ui.gone`` in the scope; the Hermes client
then starts nothing more for it).

A page runs in its thread's own context (``contextvars``), which lasts as long
as the thread, as under a WSGI server. a2wsgi alone would run each page in a
fresh copy of the event loop's context, and Django keeps its cache objects per
context: every page then built new Redis cache clients and opened a new Redis
connection (about one per page: a tenth of a worker's CPU per page with Redis).
"""

from __future__ import annotations

import asyncio
import contextvars
import os
import threading

from a2wsgi import WSGIMiddleware
from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.core.asgi import get_asgi_application
from django.core.wsgi import get_wsgi_application
from django.urls import Resolver404, get_resolver

from hermes_ui.platform import tracing

GONE = "hermes_ui.gone"

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")

tracing.setup()  # before the handlers load the middleware, which holds its span
streams = get_asgi_application()


class _ThreadContext(threading.local):
    context: contextvars.Context | None = None


_thread = _ThreadContext()


def _in_thread_context(app):
    """The WSGI app, run (and its response read and closed) in its thread's own context."""

    def call(environ, start_response):
        if _thread.context is None:
            _thread.context = contextvars.Context()  # empty, as a new thread's
        context = _thread.context
        return _InContext(context, context.run(app, environ, start_response))

    return call


class _InContext:
    """A WSGI response whose chunks are read and which is closed in ``context``."""

    def __init__(self, context: contextvars.Context, response):
        self.context, self.response = context, response

    def __iter__(self):
        chunks = self.context.run(iter, self.response)
        while True:
            try:
                chunk = self.context.run(next, chunks)
            except StopIteration:
                return
            yield chunk

    def close(self) -> None:
        close = getattr(self.response, "close", None)
        if close is not None:
            self.context.run(close)


pages = WSGIMiddleware(
    _in_thread_context(get_wsgi_application()), workers=settings.HERMES_UI_VIEW_THREADS
)


def is_stream(path: str) -> bool:
    """Is the view at ``path`` an async view (served by the ASGI handler)?"""
    try:
        return iscoroutinefunction(get_resolver().resolve(path).func)
    except Resolver404:
        return False


async def application(scope, receive, send):
    if scope["type"] != "http" or is_stream(_route_path(scope)):
        return await streams(scope, receive, send)
    try:
        body = await _read_body(scope, receive)
    except _Refused as refused:
        return await _answer(send, refused.status, refused.text)
    if body is None:
        return None  # the client went away before sending its body
    gone = threading.Event()
    watcher = asyncio.create_task(_watch(receive, gone))
    try:
        await pages({**scope, GONE: gone}, _replay(body), send)
    finally:
        watcher.cancel()


def _route_path(scope) -> str:
    root, path = scope.get("root_path", ""), scope["path"]
    return path[len(root) :] if root and path.startswith(root) else path


class _Refused(Exception):
    def __init__(self, status: int, text: str):
        super().__init__(text)
        self.status, self.text = status, text


async def _read_body(scope, receive) -> bytes | None:
    """The whole body, or ``None`` if the client left; refused when too big or too slow."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    declared = dict(scope.get("headers", ())).get(b"content-length", b"0")
    if declared.isdigit() and int(declared) > limit:
        raise _Refused(413, f"The request body is larger than {limit:,} bytes.")
    body = bytearray()
    try:
        async with asyncio.timeout(settings.HERMES_UI_BODY_SECONDS):
            while True:
                message = await receive()
                if message["type"] == "http.disconnect":
                    return None
                body += message.get("body", b"")
                if len(body) > limit:
                    raise _Refused(413, f"The request body is larger than {limit:,} bytes.")
                if not message.get("more_body", False):
                    return bytes(body)
    except TimeoutError:
        raise _Refused(408, "The request body did not arrive in time.") from None


def _replay(body: bytes):
    sent = False

    async def receive():
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": False}
        await asyncio.Event().wait()  # a page never reads past its body

    return receive


async def _watch(receive, gone: threading.Event) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass
    gone.set()


async def _answer(send, status: int, text: str) -> None:
    body = text.encode()
    headers = [
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"connection", b"close"),
        (b"content-length", str(len(body)).encode()),
    ]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
