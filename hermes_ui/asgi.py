"""ASGI entry point: uvicorn serves it so chat streams flow while pages load.

Django's ASGI handler runs the middleware chain in async mode. Every
middleware written for both modes (``MiddlewareMixin``: security, sessions,
CSRF, auth, messages, CSP…) then hops to the sync thread and back for each of
its hooks, and a sync-only one adds two more hops: about fifteen thread
switches per page, a third of a worker's CPU in the scale bench. Here a
request for a sync view runs the whole chain and the view in one hop, exactly
as under WSGI, on the same single thread Django's ASGI handler would use
(``thread_sensitive``). Async views (the chat event stream) keep the async
chain, so a long stream never holds the sync thread. Django offers no switch
for this; a WSGI-to-ASGI adapter such as a2wsgi would instead run views on a
pool of threads, which this code base has never been run on.
"""

import asyncio
import os

import django
from asgiref.sync import iscoroutinefunction, sync_to_async
from django.conf import settings
from django.core.handlers.asgi import ASGIHandler
from django.core.handlers.base import BaseHandler
from django.urls import Resolver404, get_resolver

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "hermes_ui.settings")


class HermesASGIHandler(ASGIHandler):
    def __init__(self, view_threads: int):
        super().__init__()
        self.sync_handler = BaseHandler()
        self.sync_handler.load_middleware(is_async=False)
        self.view_slots = asyncio.Semaphore(view_threads)

    async def get_response_async(self, request):
        if runs_async(request.path_info):
            return await super().get_response_async(request)
        async with self.view_slots:
            return await sync_to_async(self.sync_handler.get_response, thread_sensitive=True)(
                request
            )


def runs_async(path: str) -> bool:
    """Whether the view at ``path`` is a coroutine function (unknown paths: no)."""
    try:
        match = get_resolver().resolve(path)
    except Resolver404:
        return False
    return iscoroutinefunction(match.func)


django.setup(set_prefix=False)  # as django.core.asgi.get_asgi_application() does
application = HermesASGIHandler(settings.HERMES_UI_VIEW_THREADS)
