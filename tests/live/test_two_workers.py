"""Two uvicorn workers (with Redis, as ``manage.py serve``): a change reaches browsers on both.

The channel is the database, so the worker a browser is connected to does not
matter; the test proves both workers served streams and all of them got the event.
"""

from __future__ import annotations

import asyncio
import contextlib
import sqlite3
import time

import httpx
import pytest

from hermes_ui.platform.endpoints import Endpoint
from tests.changes.conftest import http_login
from tests.support.browser import DashboardServer
from tests.support.peers import make

pytestmark = pytest.mark.peer
STREAMS = 16


@pytest.fixture
def two_workers(tmp_path, live_peer, redis_url):
    server = DashboardServer(
        tmp_path,
        live_peer,
        extra_env={
            "REDIS_URL": redis_url,
            "HERMES_INDEX_REFRESH_SECONDS": "60",
            "HERMES_UI_LIVE_SECONDS": "0.5",
            # One person opens them all; past their share the oldest would poll.
            "HERMES_UI_LIVE_STREAMS_PER_PERSON": str(STREAMS),
        },
        refresher=True,
        workers=2,
    ).start()
    yield server
    server.stop()


def _workers(server) -> set[str]:
    with contextlib.closing(sqlite3.connect(server.data_dir / "hermes_ui.sqlite3")) as db:
        return {row[0] for row in db.execute("select worker from live_livewatch")}


def test_an_event_reaches_streams_on_both_workers(two_workers, live_peer):
    base = two_workers.base_url
    with httpx.Client(base_url=base, timeout=30) as http:
        http_login(http, "support")
        cookies = dict(http.cookies)

    async def run():
        limits = httpx.Limits(max_connections=STREAMS + 4, max_keepalive_connections=0)
        async with (
            httpx.AsyncClient(base_url=base, cookies=cookies, limits=limits, timeout=60) as client,
            contextlib.AsyncExitStack() as stack,
        ):
            opened = []
            for _ in range(STREAMS):
                answer = await stack.enter_async_context(client.stream("GET", "/e/local/live/"))
                chunks = answer.aiter_text()
                assert (await anext(chunks)).startswith("retry:")
                opened.append(chunks)
            deadline = time.monotonic() + 20
            while len(await asyncio.to_thread(_workers, two_workers)) < 2:
                assert time.monotonic() < deadline, "the streams all landed on one worker"
                await asyncio.sleep(0.2)
            endpoint = Endpoint("local", live_peer.base_url, live_peer.key)
            await asyncio.to_thread(make, endpoint, "live-two-workers")
            async with asyncio.timeout(20):
                for chunks in opened:
                    text = ""
                    while "live-two-workers" not in text:
                        text += await anext(chunks)

    asyncio.run(run())
