"""Two workers sharing Redis: one person's streams are capped across both, not per worker.

A person opens 3 live streams on worker A and 3 on worker B: the cap (5) is
past, so their oldest (A's first) closes with ``replaced`` while the other
five keep receiving changes; one closed on B frees its slot for a new one.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

import httpx
import pytest
import redis

from tests.live.test_stream import frames
from tests.scale.conftest import Shell

pytestmark = [pytest.mark.peer, pytest.mark.scale]
URL = "/e/local/live/"


class Stream:
    """One open ``/e/local/live/`` stream and everything it sent so far."""

    def __init__(self, stack, client: httpx.AsyncClient):
        self.stack, self.client, self.text = stack, client, ""

    async def open(self) -> Stream:
        answer = await self.stack.enter_async_context(self.client.stream("GET", URL))
        assert answer.status_code == 200
        self.answer, self.chunks = answer, answer.aiter_text()
        await self.until(lambda t: "retry:" in t)
        return self

    async def until(self, done, seconds: float = 15.0) -> str:
        async with asyncio.timeout(seconds):
            while not done(self.text):
                self.text += await anext(self.chunks)
        return self.text

    async def rest(self, seconds: float = 15.0) -> str:
        """Everything up to its end; fails if the server does not end it in time."""
        async with asyncio.timeout(seconds):
            async for chunk in self.chunks:
                self.text += chunk
        return self.text

    def changes(self) -> list[int]:
        return [f["id"] for f in frames(self.text, "changes")]


def _publish(shell: Shell, session_id: str) -> int:
    printed = shell.run(
        "from hermes_ui.live import channel\n"
        f"print(channel.publish('local', [[{session_id!r}, ['new']]]).id)"
    )
    return int(printed.strip().splitlines()[-1])


def _slots(scale_env) -> int:
    """Stream slots Redis counts for people right now (only one person streams here)."""
    conn = redis.Redis.from_url(scale_env["REDIS_URL"])
    with contextlib.closing(conn):
        return sum(conn.zcard(key) for key in conn.scan_iter("hui:live:person:*"))


def test_a_persons_streams_are_capped_across_workers(workers, support_cookies, scale_env, tmp_path):
    a, b = workers
    cookies = support_cookies
    # Publishes from a process of their own, as the periodic worker's live polls do.
    shell = Shell(a.env, tmp_path / "shell.log")

    async def run():
        limits = httpx.Limits(max_connections=20, max_keepalive_connections=0)
        async with (
            httpx.AsyncClient(base_url=a.base_url, cookies=cookies, limits=limits) as on_a,
            httpx.AsyncClient(base_url=b.base_url, cookies=cookies, limits=limits) as on_b,
            contextlib.AsyncExitStack() as stack,
        ):
            on_a.timeout = on_b.timeout = httpx.Timeout(60)
            opened_a = [await Stream(stack, on_a).open() for _ in range(3)]
            opened_b = []
            for _ in range(3):
                opened_b.append(await Stream(stack, on_b).open())
                await asyncio.sleep(0.3)  # opened in this order, across workers too
            first, *others = [*opened_a, *opened_b]

            # The sixth (on B) ends the person's oldest, which runs on A.
            oldest = await first.rest()
            assert frames(oldest, "poll") == [{"seconds": 30, "reason": "replaced"}]
            sent = await asyncio.to_thread(_publish, shell, "cap-1")
            for stream in others:
                await stream.until(lambda t, s=stream: sent in s.changes())
                assert frames(stream.text, "poll") == []

            # One closed on B frees its slot: a new one on A ends nobody.
            closed = opened_b.pop(0)
            await closed.answer.aclose()
            deadline = time.monotonic() + 15
            while await asyncio.to_thread(_slots, scale_env) != 4:
                assert time.monotonic() < deadline, "the closed stream kept its slot"
                await asyncio.sleep(0.2)
            newest = await Stream(stack, on_a).open()
            await asyncio.sleep(3)  # several renewals: a replacement would be seen by now
            sent = await asyncio.to_thread(_publish, shell, "cap-2")
            for stream in [*opened_a[1:], *opened_b, newest]:
                await stream.until(lambda t, s=stream: sent in s.changes())
                assert frames(stream.text, "poll") == []

    with shell:
        asyncio.run(run())
