"""ASGI entry point: uvicorn serves it so chat streams flow while pages load.

Django's ASGI handler, as it is, costs a worker much of its CPU:

- it runs the middleware chain in async mode, so every ``MiddlewareMixin``
  hook (security, sessions, CSRF, auth, messages, CSP…) hops to a thread and
  back, and a sync-only middleware adds two more hops: about fifteen thread
  switches per page;
- it gives each request a new thread, so fifty queued requests are fifty
  threads fighting over the GIL, and each opens its own database connection.

Here a page (a sync view) runs the whole chain and the view in one hop, as
under WSGI, on one of ``HERMES_UI_VIEW_THREADS`` long-lived threads ("lanes")
per worker. A request holds its lane from start to finish, so Django's
request signals, the view and the response's close all run on that one
thread, as they would on a thread of its own, and its database connection
outlives the request. Further requests wait for a lane in the event loop.
Async views (the chat event stream) and views marked ``long_response`` (an
export streaming for minutes) keep Django's own path and a thread of their
own, so they never hold a lane.

Django offers no switch for this; asgiref's ``ThreadSensitiveContext`` with
an executor is the supported way to choose the thread. A WSGI-to-ASGI adapter
such as a2wsgi would instead run views on a shared pool of threads, and
gunicorn cannot serve the event stream.
"""

import asyncio
import os
from concurrent.futures import ThreadPoolExecutor

import django
from asgiref.sync import ThreadSensitiveContext, iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.urls import Resolver404, get_resolver

from hermes_ui.db_steps import release_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")


class HermesASGIHandler(ASGIHandler):
    def __init__(self, view_threads: int):
        super().__init__()
        self.sync_handler = BaseHandler()
        self.sync_handler.load_middleware(is_async=False)
        self.lanes: asyncio.Queue = asyncio.Queue()
        for n in range(view_threads):
            self.lanes.put_nowait(ThreadPoolExecutor(1, thread_name_prefix=f"view-lane-{n}"))

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await super().__call__(scope, receive, send)
        # Resolved once here; get_response_async reads it back from the request.
        scope = {**scope, KIND_KEY: route_kind(route_path(scope))}
        if scope[KIND_KEY] != PAGE:
            # A thread of its own, as Django gives every request; whatever
            # connection it still holds at the end is given back there.
            async with ThreadSensitiveContext():
                try:
                    await super().__call__(scope, receive, send)
                finally:
                    await sync_to_async(release_connections, thread_sensitive=True)()
            return
        lane = await self.lanes.get()
        try:
            async with ThreadSensitiveContext(executor=lane):
                await super().__call__(scope, receive, send)
        finally:
            self.lanes.put_nowait(lane)

    async def get_response_async(self, request):
        if request.scope[KIND_KEY] == ASYNC:
            return await super().get_response_async(request)
        # Thread-sensitive: the request's lane (or, off the lanes, its own thread).
        return await sync_to_async(self.sync_handler.get_response, thread_sensitive=True)(request)


# How a request is served: an async view (the chat stream), a sync view whose
# response streams for long (an export), or a page on a lane.
ASYNC, LONG, PAGE = "async", "long", "page"
KIND_KEY = "hermes_ui.kind"


def route_path(scope) -> str:
    """The path the URLconf sees: without the root path a proxy mounts the app under."""
    root, path = scope.get("root_path", ""), scope["path"]
    return path[len(root) :] if root and path.startswith(root) else path


def route_kind(path: str) -> str:
    """``ASYNC``, ``LONG`` or ``PAGE`` for the view at ``path`` (unknown paths: a page)."""
    try:
        view = get_resolver().resolve(path).func
    except Resolver404:
        return PAGE
    if iscoroutinefunction(view):
        return ASYNC
    return LONG if getattr(view, "long_response", False) else PAGE


django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application() does
application = HermesASGIHandler(settings.HERMES_UI_VIEW_THREADS)
