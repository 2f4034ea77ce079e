"""Many idle event streams on one worker do not stop its pages from answering.

A behaviour test with generous bounds; the figures are ``manage.py bench``'s.
"""

from __future__ import annotations

import asyncio
import contextlib

import httpx
import pytest

from hermes_ui.platform.endpoints import Endpoint
from tests.changes.conftest import http_login
from tests.support.peers import make

pytestmark = pytest.mark.peer
STREAMS = 200
GENEROUS = 20.0  # seconds a page may take with the streams open (it takes well under one)


def test_200_idle_streams_leave_the_pages_answering(live_dashboard, live_peer):
    base = live_dashboard.base_url
    with httpx.Client(base_url=base, timeout=30) as http:
        http_login(http, "support")
        cookies = dict(http.cookies)

    async def run():
        limits = httpx.Limits(max_connections=STREAMS + 10, max_keepalive_connections=0)
        async with (
            httpx.AsyncClient(base_url=base, cookies=cookies, limits=limits, timeout=60) as streams,
            httpx.AsyncClient(base_url=base, cookies=cookies, timeout=GENEROUS) as pages,
            contextlib.AsyncExitStack() as stack,
        ):
            opened = []
            for _ in range(STREAMS):
                answer = await stack.enter_async_context(streams.stream("GET", "/e/local/live/"))
                assert answer.status_code == 200
                chunks = answer.aiter_text()
                assert (await anext(chunks)).startswith("retry: 3000")  # followed, not polled
                opened.append(chunks)
            for url in ("/e/local/sessions/?view=all", "/e/local/sessions/", "/healthz"):
                assert (await pages.get(url)).status_code == 200, url
            # And the streams still carry a change made on Hermes (to the last one opened).
            await asyncio.to_thread(
                make, Endpoint("local", live_peer.base_url, live_peer.key), "live-many-streams"
            )
            text = ""
            async with asyncio.timeout(GENEROUS):
                while "live-many-streams" not in text:
                    text += await anext(opened[-1])

    asyncio.run(run())
