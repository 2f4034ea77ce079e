"""Benchmark of live updates: from a change on Hermes to the browsers' streams.

``python manage.py bench --only live`` seeds a demo peer, serves the dashboard
as ``make run`` does (one uvicorn worker and the periodic task worker,
``HERMES_UI_LIVE_SECONDS=2``, SQLite), and opens 1, 50 and 500 event streams
as a logged-in support user. At each level it creates sessions through the
Hermes API directly (as another client would) and times, on every stream,
the arrival of the event naming each one: median and p95 over all streams
and changes. It also counts the list calls the periodic worker made while the
streams were open and nothing changed (from its log): at most one per
endpoint and interval, whatever the number of streams.

Then the dashboard-event path (``hermes_ui/live/notices.py``): with 1 and 50
deletion-queue streams open (``/live/deletions/``), the same user files
deletion requests through the request form, and each stream's arrival of the
request's notice is timed from the moment the form's answer came back (the
request is committed by then): median and p95.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

LEVELS = (1, 50, 500)
NOTICE_LEVELS = (1, 50)
REQUESTS = 5  # deletion requests filed per notice level
CHANGES = 5  # sessions created per level
INTERVAL = "2"
QUIET_SECONDS = 20.0  # watched, nothing changing: list calls counted
PASSWORD = "bench-live-pass-12345"
_CALLS = re.compile(r"index sync endpoint=bench full=False calls=(\d+)")


def run(stdout) -> None:
    from devtools.bench.child import seeded_peer

    with contextlib.ExitStack() as stack:
        scratch, peer = stack.enter_context(seeded_peer(stdout, "live", profile="demo"))
        base, log = stack.enter_context(_served(Path(scratch), peer))
        asyncio.run(_measure(stdout, base, peer, log))
        asyncio.run(_measure_notices(stdout, base, peer))


@contextlib.contextmanager
def _served(scratch: Path, peer):
    from devtools.bench.child import dashboard_env
    from devtools.peer.launcher import free_port
    from hermes_ui.platform.serving import periodic_worker_argv, uvicorn_argv

    repo = Path(__file__).resolve().parents[2]
    env = dashboard_env(
        scratch / "ui",
        peer,
        HERMES_INDEX_REFRESH_SECONDS="3600",  # only the live loop polls
        HERMES_UI_LIVE_SECONDS=INTERVAL,
        HERMES_UI_LIVE_MAX_STREAMS="1000",
        HERMES_UI_LOG_LEVEL="INFO",
    )
    migrate_with_user(env)
    port = free_port()
    log = scratch / "periodic.log"
    with open(os.devnull, "wb") as quiet, open(log, "wb") as out:
        web = subprocess.Popen(
            uvicorn_argv("127.0.0.1", port), env=env, cwd=repo, stdout=quiet, stderr=quiet
        )
        periodic = subprocess.Popen(
            periodic_worker_argv(), env=env, cwd=repo, stdout=out, stderr=out
        )
        try:
            base = f"http://127.0.0.1:{port}"
            _wait_up(base)
            yield base, log
        finally:
            for process in (web, periodic):
                process.terminate()
                process.wait(timeout=30)


def migrate_with_user(env: dict) -> None:
    """The data folder of ``env`` migrated, with the support user ``_login`` signs in as."""
    repo = Path(__file__).resolve().parents[2]
    manage = [sys.executable, str(repo / "manage.py")]
    subprocess.run([*manage, "migrate", "--verbosity", "0"], env=env, check=True, cwd=repo)
    subprocess.run(
        [*manage, "create_user", "bench-live", "--role", "support", "--password", PASSWORD],
        env=env,
        check=True,
        cwd=repo,
        capture_output=True,
    )


def _wait_up(base: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return
        time.sleep(0.2)
    raise RuntimeError("the dashboard did not start")


def _login(base: str) -> dict:
    with httpx.Client(base_url=base, timeout=30) as http:
        page = http.get("/accounts/login/")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text).group(1)
        data = {"username": "bench-live", "password": PASSWORD, "csrfmiddlewaretoken": token}
        http.post("/accounts/login/", data=data)
        return dict(http.cookies)


def _create(peer, session_id: str) -> float:
    from hermes_ui.audit.idempotency import mint_key
    from hermes_ui.hermes.client import HermesClient
    from hermes_ui.platform.endpoints import Endpoint

    client = HermesClient(Endpoint("bench", peer.base_url, peer.key))
    try:
        client.create_session(idempotency_key=mint_key(), session_id=session_id, title=session_id)
    finally:
        client.close()
    return time.monotonic()


async def _measure(stdout, base: str, peer, log: Path) -> None:
    import django

    django.setup()
    cookies = await asyncio.to_thread(_login, base)
    for level in LEVELS:
        limits = httpx.Limits(max_connections=level + 10, max_keepalive_connections=0)
        async with (
            httpx.AsyncClient(base_url=base, cookies=cookies, limits=limits, timeout=120) as client,
            contextlib.AsyncExitStack() as stack,
        ):
            arrivals: list[dict[str, float]] = [{} for _ in range(level)]
            readers = []
            for n in range(level):
                answer = await stack.enter_async_context(client.stream("GET", "/e/bench/live/"))
                chunks = answer.aiter_text()
                await anext(chunks)
                readers.append(asyncio.create_task(_read(chunks, arrivals[n])))
            await asyncio.sleep(3 * float(INTERVAL))  # the live round notices the watch
            quiet_from = log.stat().st_size
            await asyncio.sleep(QUIET_SECONDS)
            calls = _list_calls(log, quiet_from)
            made = {}
            for change in range(CHANGES):
                session_id = f"bench-live-{level}-{change}-{time.time_ns()}"
                made[session_id] = await asyncio.to_thread(_create, peer, session_id)
                await asyncio.sleep(float(INTERVAL) * 1.3)  # changes in different polls
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not all(
                set(made) <= set(seen) for seen in arrivals
            ):
                await asyncio.sleep(0.2)
            for reader in readers:
                reader.cancel()
            latencies = [
                seen[sid] - at for seen in arrivals for sid, at in made.items() if sid in seen
            ]
            missed = level * len(made) - len(latencies)
            cuts = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else latencies
            stdout.write(
                f"{level:>4} streams: change->stream median {statistics.median(latencies):.2f} s, "
                f"p95 {cuts[-1]:.2f} s over {len(latencies)} arrivals ({missed} missed); "
                f"quiet {QUIET_SECONDS:.0f} s: {calls} list calls "
                f"({calls / (QUIET_SECONDS / float(INTERVAL)):.2f} per {INTERVAL} s interval)"
            )


async def _read(chunks, seen: dict[str, float]) -> None:
    with contextlib.suppress(httpx.HTTPError, asyncio.CancelledError):
        async for chunk in chunks:
            now = time.monotonic()
            for session_id in re.findall(r'"(bench-live-[^"]+)"', chunk):
                seen.setdefault(session_id, now)


def _list_calls(log: Path, start: int) -> int:
    with open(log, "rb") as text:
        text.seek(start)
        return sum(int(n) for n in _CALLS.findall(text.read().decode(errors="replace")))


async def _measure_notices(stdout, base: str, peer) -> None:
    import django

    django.setup()
    cookies = await asyncio.to_thread(_login, base)
    for level in NOTICE_LEVELS:
        limits = httpx.Limits(max_connections=level + 10, max_keepalive_connections=0)
        async with (
            httpx.AsyncClient(base_url=base, cookies=cookies, limits=limits, timeout=120) as client,
            contextlib.AsyncExitStack() as stack,
        ):
            arrivals: list[dict[int, float]] = [{} for _ in range(level)]
            readers = []
            for n in range(level):
                answer = await stack.enter_async_context(client.stream("GET", "/live/deletions/"))
                chunks = answer.aiter_text()
                await anext(chunks)
                readers.append(asyncio.create_task(_read_notices(chunks, arrivals[n])))
            filed = {}
            for change in range(REQUESTS):
                session_id = f"bench-notice-{level}-{change}-{time.time_ns()}"
                await asyncio.to_thread(_create, peer, session_id)
                request_id, at = await asyncio.to_thread(_file_request, base, cookies, session_id)
                filed[request_id] = at
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and not all(
                set(filed) <= set(seen) for seen in arrivals
            ):
                await asyncio.sleep(0.05)
            for reader in readers:
                reader.cancel()
            latencies = [
                seen[rid] - at for seen in arrivals for rid, at in filed.items() if rid in seen
            ]
            missed = level * len(filed) - len(latencies)
            cuts = statistics.quantiles(latencies, n=20) if len(latencies) > 1 else latencies
            stdout.write(
                f"{level:>4} deletion-queue streams: request filed->stream median "
                f"{statistics.median(latencies):.2f} s, p95 {cuts[-1]:.2f} s over "
                f"{len(latencies)} arrivals ({missed} missed)"
            )


def _file_request(base: str, cookies: dict, session_id: str) -> tuple[int, float]:
    """File a deletion request through the form; its id and when the answer came back."""
    with httpx.Client(base_url=base, cookies=cookies, timeout=60) as http:
        form = http.get(f"/e/bench/deletions/new/?session={session_id}")
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form.text).group(1)
        data = {"session": session_id, "reason": "bench", "csrfmiddlewaretoken": token}
        answer = http.post("/e/bench/deletions/new/", data=data)
        at = time.monotonic()
    found = re.search(r"/deletions/(\d+)/", answer.headers.get("location", ""))
    if found is None:
        raise RuntimeError(f"the deletion request was not filed (HTTP {answer.status_code})")
    return int(found.group(1)), at


async def _read_notices(chunks, seen: dict[int, float]) -> None:
    with contextlib.suppress(httpx.HTTPError, asyncio.CancelledError):
        async for chunk in chunks:
            now = time.monotonic()
            for request_id in re.findall(r'"request_id":(\d+)', chunk):
                seen.setdefault(int(request_id), now)
