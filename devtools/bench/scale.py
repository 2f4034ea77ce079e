"""Scale benchmark: one worker on SQLite against N workers on PostgreSQL + Redis.

``python manage.py bench --only scale`` seeds a 10,000-session peer (100k
messages, the bench profile), then in one run:

1. The session page's own cost: a 10-message session page rendered in
   process, against the raw ``get`` + ``messages`` calls it makes.
2. Load: logged-in users in a closed loop (no think time) for a fixed time,
   the mix index 30 %, search 15 %, session page 35 %, live list 10 %,
   lineage 10 %, against (a) one uvicorn worker on SQLite and (b)
   ``WEB_CONCURRENCY`` workers (default: the number of cores) on a throwaway
   PostgreSQL cluster and Redis server. Each worker listens on its own port
   and users are spread over them round robin, as a proxy would.
3. Streams, on (b): concurrent streamed turns, each started on one worker,
   watched on the next and resumed with ``Last-Event-ID`` on the one after.
   The delay per delta is the time from the peer emitting it (its ``ts``)
   to the watcher reading it, against the same number of turns read from
   the peer directly; a replay is a delta a watcher read twice.

4. Capped cores: 1 worker and 3 workers, each worker process in a cgroup of
   its own capped at a quarter of a core (CFS quota 25 ms per 100 ms period,
   and a high CPU weight so that other work on the machine cannot eat that
   quarter). Both are started side by side, each with its own Redis and the
   one PostgreSQL, and get the same users and mix in alternating turns
   (1 3 3 1 1 3 3 1), so a change in what else the machine does (other test
   runs, another VM on the host) weighs on both alike: run one after the
   other, the ratio moved by a third with the machine's load. As in (b),
   each worker is a single-process uvicorn on a port of its own and users
   are spread over them round robin. The ratio 3 / 1 is the scaling
   (target: at least 2.7x, with no errors). The cgroups are removed
   afterwards, also when the run fails or is stopped by SIGTERM. Without a
   writable cgroup cpu controller (root, cgroup v1 ``cpu`` or v2
   ``cpu.max``) the step says why and is skipped.

The load generator is ``httpx.AsyncClient`` in this process, on loopback.
``SCALE_BENCH_USERS`` (50), ``SCALE_BENCH_SECONDS`` (60), ``SCALE_BENCH_TURNS``
(20) and ``SCALE_BENCH_SESSIONS`` (10000) shorten a run. ``SCALE_BENCH_ONLY=page``
runs only step 1 (with ``SCALE_BENCH_SESSIONS=100`` it takes seconds, for
iterating on the session page), ``SCALE_BENCH_ONLY=capped`` only step 4, and
``SCALE_BENCH_ONLY=uncapped`` steps 1 to 3. Step 1 also times the page through
the worker (uvicorn, one browser), HTTP and the ASGI layer included.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parents[2]
ENDPOINT = "bench"
PASSWORD = "bench-scale-password-1"
MIX = (("index", 30), ("search", 15), ("session page", 35), ("live list", 10), ("lineage", 10))
LINEAGE_NODES = 20  # lineage pages of the first nodes of the 500-node bench lineage
TURN_WORDS = 40  # deltas per streamed turn, 200 ms apart
RECONNECT_AFTER = 15  # deltas read before the watcher drops and resumes elsewhere
REQUEST_TIMEOUT = 60.0
CAPPED_WORKERS = (1, 3)  # step 4: worker counts, each worker capped at QUOTA_US per PERIOD_US
QUOTA_US, PERIOD_US = 25_000, 100_000
SLICES = 4  # step 4: each count's time is served in this many turns, alternating


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


def run(stdout) -> None:
    from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, run_seed

    only = os.environ.get("SCALE_BENCH_ONLY", "")
    users = _env_int("SCALE_BENCH_USERS", 50)
    seconds = _env_int("SCALE_BENCH_SECONDS", 60)
    count = _env_int("SCALE_BENCH_SESSIONS", 10_000)
    with tempfile.TemporaryDirectory(prefix="hermes-bench-scale-") as scratch:
        home = Path(scratch) / "home"
        python = ensure_peer_venv()
        started = time.perf_counter()
        summary = run_seed(home, "bench", count=count, peer_python=python)
        stdout.write(
            f"seeded {summary['sessions']:,} sessions in "
            f"{time.perf_counter() - started:.1f} s; {users} users x {seconds} s per "
            f"setup, closed loop; {os.cpu_count()} cores"
        )
        with Peer(PeerConfig(home=home, peer_python=python)) as peer:
            if only != "capped":
                _uncapped(stdout, peer, Path(scratch), users, seconds, only)
            if only in ("", "capped"):
                _capped(stdout, peer, Path(scratch), users, seconds)


def _uncapped(stdout, peer, scratch: Path, users: int, seconds: int, only: str) -> None:
    """Steps 1 to 3."""
    from devtools.services import Postgres, Redis

    turns = _env_int("SCALE_BENCH_TURNS", 20)
    workers = _env_int("WEB_CONCURRENCY", os.cpu_count() or 1)
    single = _Setup(scratch / "a", peer, {}, workers=1)
    single.prepare(stdout)
    _page_cost(stdout, single)
    figures = {}
    with single:
        _page_over_http(stdout, single)
        if only == "page":
            return
        figures["a"] = _load(stdout, "(a) 1 worker, SQLite", single, users, seconds)
    with Postgres() as pg, Redis() as redis:
        services = {"DATABASE_URL": pg.url, "REDIS_URL": redis.url}
        shared = _Setup(scratch / "b", peer, services, workers=workers)
        shared.prepare(stdout)
        with shared:
            label = f"(b) {workers} workers, PostgreSQL + Redis"
            figures["b"] = _load(stdout, label, shared, users, seconds)
            a, b = figures["a"].rate, figures["b"].rate
            ratio = b / a if a else float("nan")
            stdout.write(f"throughput (b) / (a): {ratio:.2f}x (target: at least 3x)")
            asyncio.run(_streams(stdout, peer, shared, turns))


# -- 1. the session page's own cost ---------------------------------------------


def _page_cost(stdout, setup) -> None:
    child = subprocess.run(
        [sys.executable, "-m", "devtools.bench.scale"],
        env=setup.env,
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
    )
    for line in child.stdout.splitlines():
        stdout.write(line)
    if child.returncode != 0:
        stdout.write(f"page cost measurement failed: {child.stderr[-1500:]}")


def _measure_page_cost() -> None:
    """In process (no HTTP in front): the session page against its two Hermes calls."""
    import django

    django.setup()
    from django.contrib.auth import get_user_model
    from django.test import Client

    from hermes_ui.platform.endpoints import get_endpoint
    from hermes_ui.web.links import session_url

    ep = get_endpoint(ENDPOINT)
    raw = httpx.Client(
        base_url=ep.base_url, timeout=60, headers={"Authorization": f"Bearer {ep.api_key}"}
    )
    client = Client()
    client.force_login(get_user_model().objects.get(username="bench"))
    ids = [f"bench_{i:05d}" for i in range(1, 41)]

    def raw_calls(session_id):
        raw.get(f"/api/sessions/{session_id}").raise_for_status()
        raw.get(f"/api/sessions/{session_id}/messages").raise_for_status()

    def page(session_id):
        answer = client.get(session_url(ENDPOINT, session_id))
        assert answer.status_code == 200, answer.status_code
        assert answer.content.count(b'class="message ') >= 10 or b"10 messages" in answer.content

    for session_id in ids[:5]:  # warm up templates, connections and caches of code
        page(session_id)
        raw_calls(session_id)
    raw_ms, page_ms = [], []
    for session_id in ids[5:]:  # a session not seen before: the transcript cache is cold
        raw_ms.append(_timed(raw_calls, session_id))
        page_ms.append(_timed(page, session_id))
    raw_med, page_med = statistics.median(raw_ms), statistics.median(page_ms)
    print(
        f"session page (10 messages), in process: median {page_med:.1f} ms against "
        f"{raw_med:.1f} ms for the raw get + messages calls: {page_med / raw_med:.2f}x "
        f"(target: at most 2x; n={len(page_ms)})",
        flush=True,
    )


def _page_over_http(stdout, setup) -> None:
    """The same comparison through the worker (uvicorn, one browser, one page at a
    time): what a user waits for, HTTP and the ASGI layer included."""
    port = setup.ports[0]
    with (
        httpx.Client(
            base_url=f"http://127.0.0.1:{port}", cookies=setup.cookies, timeout=60
        ) as browser,
        httpx.Client(
            base_url=setup.env["HERMES_API_URL"],
            timeout=60,
            headers={"Authorization": f"Bearer {setup.env['HERMES_API_KEY']}"},
        ) as raw,
    ):

        def page(session_id):
            browser.get(f"/e/{ENDPOINT}/sessions/{session_id}/").raise_for_status()

        def raw_calls(session_id):
            raw.get(f"/api/sessions/{session_id}").raise_for_status()
            raw.get(f"/api/sessions/{session_id}/messages").raise_for_status()

        ids = [f"bench_{i:05d}" for i in range(41, 81)]
        for session_id in ids[:5]:
            page(session_id)
            raw_calls(session_id)
        cpu = _cpu_of(p.pid for p in setup.processes)
        page_ms = [_timed(page, session_id) for session_id in ids[5:]]
        cpu = (_cpu_of(p.pid for p in setup.processes) - cpu) * 1000 / len(page_ms)
        raw_ms = [_timed(raw_calls, session_id) for session_id in ids[5:]]
    page_med, raw_med = statistics.median(page_ms), statistics.median(raw_ms)
    stdout.write(
        f"session page (10 messages) through the worker: median {page_med:.1f} ms "
        f"({cpu:.1f} ms of worker CPU) against {raw_med:.1f} ms for the raw calls: "
        f"{page_med / raw_med:.2f}x"
    )


def _timed(action, *args) -> float:
    started = time.perf_counter()
    action(*args)
    return (time.perf_counter() - started) * 1000


# -- 2. load ----------------------------------------------------------------------


@dataclass
class _Figures:
    rate: float  # requests per second
    errors: int
    dashboard_ms: float  # dashboard workers' CPU per request


def _load(stdout, label: str, setup, users: int, seconds: int) -> _Figures:
    before = _cpu_snapshot(setup)
    timings, errors, elapsed = asyncio.run(_users(setup, users, seconds))
    used = {k: (v - before[k]) / elapsed for k, v in _cpu_snapshot(setup).items()}
    total = sum(len(v) for v in timings.values())
    rate = total / elapsed
    failed = sum(errors.values())
    stdout.write(f"{label}: {rate:.1f} requests/s ({total} in {elapsed:.1f} s), {failed} errors")
    # Where the machine's cores went: a closed loop is bound by the busiest resource.
    other = used["machine"] - used["workers"] - used["peer"] - used["generator"]
    per_request = 1000 / rate if rate else float("nan")
    stdout.write(
        f"  cores busy: {used['machine']:.2f} of {os.cpu_count()} (dashboard workers "
        f"{used['workers']:.2f}, Hermes peer {used['peer']:.2f}, load generator "
        f"{used['generator']:.2f}, other incl. PostgreSQL/Redis {other:.2f}); CPU per "
        f"request {used['machine'] * per_request:.1f} ms, of it the dashboard "
        f"{used['workers'] * per_request:.1f} ms and Hermes "
        f"{used['peer'] * per_request:.1f} ms"
    )
    _write_latencies(stdout, setup, timings, errors)
    return _Figures(rate, failed, used["workers"] * per_request)


def _write_latencies(stdout, setup, timings, errors) -> None:
    for name, _ in MIX:
        values = sorted(timings[name])
        p50, p95, p99 = (_pct(values, p) for p in (50, 95, 99))
        stdout.write(
            f"  {name:13s} n={len(values):5d}  p50 {p50:7.0f} ms  p95 {p95:7.0f} ms  "
            f"p99 {p99:7.0f} ms  errors {errors[name]}"
        )
    for detail, n in sorted(setup.error_kinds.items()):
        stdout.write(f"  error: {detail} x{n}")


def _load_in_turns(stdout, runs: list[tuple[str, object]], users: int, seconds: int):
    """``users`` users against each setup for ``seconds`` in all, in ``SLICES`` turns
    (A B B A A B B A), so a change in what else the machine does weighs on every setup
    alike. One ``_Figures`` per setup."""
    served = [(defaultdict(list), defaultdict(int)) for _ in runs]
    spent = [dict.fromkeys(("elapsed", "workers", "machine", "peer"), 0.0) for _ in runs]
    for turn in range(SLICES):
        order = list(range(len(runs)))
        for index in order if turn % 2 == 0 else reversed(order):
            setup = runs[index][1]
            before = _cpu_snapshot(setup)
            timings, errors, elapsed = asyncio.run(_users(setup, users, seconds / SLICES))
            after = _cpu_snapshot(setup)
            for key in ("workers", "machine", "peer"):
                spent[index][key] += after[key] - before[key]
            spent[index]["elapsed"] += elapsed
            for name, values in timings.items():
                served[index][0][name] += values
            for name, n in errors.items():
                served[index][1][name] += n
    figures = []
    for (label, setup), (timings, errors), used in zip(runs, served, spent, strict=True):
        total, elapsed = sum(len(v) for v in timings.values()), used["elapsed"]
        rate, failed = total / elapsed, sum(errors.values())
        per_request = 1000 / total if total else float("nan")
        stdout.write(
            f"{label}: {rate:.1f} requests/s ({total} in {elapsed:.1f} s), {failed} errors"
        )
        stdout.write(
            f"  cores busy: {used['machine'] / elapsed:.2f} of {os.cpu_count()} (dashboard "
            f"workers {used['workers'] / elapsed:.2f}, Hermes peer {used['peer'] / elapsed:.2f}); "
            f"CPU per request: the dashboard {used['workers'] * per_request:.1f} ms, Hermes "
            f"{used['peer'] * per_request:.1f} ms"
        )
        _write_latencies(stdout, setup, timings, errors)
        figures.append(_Figures(rate, failed, used["workers"] * per_request))
    return figures


def _cpu_snapshot(setup) -> dict[str, float]:
    """CPU seconds so far: the dashboard's workers, the peer, this process, the machine."""
    mine = os.times()
    return {
        "workers": _cpu_of(p.pid for p in setup.processes),
        "peer": _cpu_of(setup.peer.pids()),
        "generator": mine.user + mine.system,
        "machine": _machine_busy_seconds(),
    }


def _cpu_of(pids) -> float:
    """User + system CPU time of these processes so far (Linux /proc)."""
    total = 0.0
    for pid in pids:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
    return total


def _machine_busy_seconds() -> float:
    """Busy CPU seconds of the whole machine so far, summed over its cores (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")


def _pick_url(rng: random.Random, count: int) -> tuple[str, str]:
    from devtools.peer import demo_ids

    name = rng.choices([n for n, _ in MIX], weights=[w for _, w in MIX])[0]
    session_id = f"{demo_ids.BENCH_PREFIX}{rng.randrange(count):05d}"
    if name == "index":
        return name, f"/e/{ENDPOINT}/sessions/"
    if name == "search":
        return name, f"/e/{ENDPOINT}/sessions/?q=session+{rng.randrange(count):05d}"
    if name == "session page":
        return name, f"/e/{ENDPOINT}/sessions/{session_id}/"
    if name == "live list":  # Hermes' own list
        return name, f"/e/{ENDPOINT}/sessions/?offset=0"
    node = f"{demo_ids.BENCH_LINEAGE_PREFIX}{rng.randrange(LINEAGE_NODES):03d}"
    return name, f"/e/{ENDPOINT}/lineage/{node}/"


async def _users(setup, users: int, seconds: int):
    timings: dict[str, list[float]] = defaultdict(list)
    errors: dict[str, int] = defaultdict(int)
    count = setup.sessions
    stop = time.monotonic() + seconds

    async def user(index: int) -> None:
        rng = random.Random(index)
        async with setup.async_client(index) as client:
            while time.monotonic() < stop:
                name, url = _pick_url(rng, count)
                began = time.perf_counter()
                try:
                    answer = await client.get(url)
                    ok = answer.status_code == 200
                    detail = f"{name}: HTTP {answer.status_code}"
                    if not ok:
                        detail += _page_title(answer.text)
                except httpx.HTTPError as exc:
                    ok, detail = False, f"{name}: {type(exc).__name__}"
                timings[name].append((time.perf_counter() - began) * 1000)
                if not ok:
                    errors[name] += 1
                    setup.error_kinds[detail] = setup.error_kinds.get(detail, 0) + 1

    began = time.monotonic()
    await asyncio.wait_for(
        asyncio.gather(*(user(i) for i in range(users))), seconds + REQUEST_TIMEOUT + 10
    )
    return timings, errors, time.monotonic() - began


def _page_title(html: str) -> str:
    """`` (the page's title)``, which says which error it is, or nothing."""
    found = re.search(r"<title>\s*([^<]{1,80}?)\s*(?:·[^<]*)?</title>", html)
    return f" ({found.group(1)})" if found else ""


def _pct(values: list[float], p: int) -> float:
    if len(values) < 2:
        return values[0] if values else float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


# -- 3. streamed turns across workers -----------------------------------------------


async def _streams(stdout, peer, setup, turns: int) -> None:
    text = f"[[slow:{TURN_WORDS}]] scale bench"
    direct = await asyncio.gather(*(_direct_turn(peer, text, i * 0.05) for i in range(turns)))
    direct_lat = [v for latencies in direct for v in latencies]
    results = await asyncio.gather(
        *(_relayed_turn(peer, setup, text, i, i * 0.05) for i in range(turns))
    )
    live, caught_up, replays, missing, failures = [], 0, 0, 0, []
    for result in results:
        if isinstance(result, str):
            failures.append(result)
            continue
        arrivals, resumed_at, words, shown, turn_id = result
        emitted = setup.event_times(turn_id)
        for seq, at in arrivals:
            if seq not in emitted:
                continue
            if emitted[seq] < resumed_at.get(seq, 0.0):
                caught_up += 1  # sent while the watcher was away: the reconnect's delay
            else:
                live.append((at - emitted[seq]) * 1000)
        replays += sum(n - 1 for n in words.values() if n > 1)
        replays += sum(1 for word in words if word in shown)
        expected = (f"slow{i}" for i in range(1, TURN_WORDS + 1))
        missing += sum(1 for word in expected if word not in words and word not in shown)
    d_med, d_p95 = _pct(sorted(direct_lat), 50), _pct(sorted(direct_lat), 95)
    r_med, r_p95 = _pct(sorted(live), 50), _pct(sorted(live), 95)
    workers = setup.workers
    stdout.write(
        f"{turns} concurrent streamed turns of {TURN_WORDS} deltas (200 ms apart), "
        f"each started on worker k, watched on k+1 and resumed with Last-Event-ID on "
        f"k+2 (mod {workers}) after {RECONNECT_AFTER} deltas:"
    )
    stdout.write(
        f"  peer -> client directly:            median {d_med:6.2f} ms  "
        f"p95 {d_p95:6.2f} ms  ({len(direct_lat)} deltas)"
    )
    stdout.write(
        f"  peer -> owner -> Redis -> watcher:  median {r_med:6.2f} ms  "
        f"p95 {r_p95:6.2f} ms  ({len(live)} live deltas, {caught_up} caught up "
        f"on reconnect)"
    )
    stdout.write(
        f"  added by the relay per delta:       median {r_med - d_med:6.2f} ms  "
        f"p95 {r_p95 - d_p95:6.2f} ms  (target: at most 5 ms at the median)"
    )
    stdout.write(f"  replays: {replays}; deltas missing: {missing}; turns failed: {len(failures)}")
    for failure in failures[:5]:
        stdout.write(f"  failed: {failure}")


async def _new_session(peer, http: httpx.AsyncClient) -> str:
    session_id = f"bench-scale-{time.monotonic_ns()}"
    answer = await http.post(
        peer.base_url + "/api/sessions", headers=peer.auth_headers, json={"id": session_id}
    )
    answer.raise_for_status()
    return session_id


async def _direct_turn(peer, text: str, delay: float) -> list[float]:
    await asyncio.sleep(delay)
    latencies = []
    async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
        session_id = await _new_session(peer, http)
        url = f"{peer.base_url}/api/sessions/{session_id}/chat/stream"
        async with http.stream(
            "POST", url, headers=peer.auth_headers, json={"message": text}
        ) as answer:
            event = None
            async for line in answer.aiter_lines():
                if line.startswith("event: "):
                    event = line[7:]
                elif line.startswith("data: ") and event == "assistant.delta":
                    latencies.append((time.time() - json.loads(line[6:])["ts"]) * 1000)
    return latencies


async def _relayed_turn(peer, setup, text: str, index: int, delay: float):
    """(arrivals, resume time per seq, words read, turn id), or what went wrong."""
    await asyncio.sleep(delay)
    n = setup.workers
    try:
        async with httpx.AsyncClient(timeout=REQUEST_TIMEOUT) as http:
            session_id = await _new_session(peer, http)
        async with setup.async_client(index) as owner:
            stream_url = await _start_turn(owner, session_id, text)
        turn_id = int(stream_url.strip("/").split("/")[-2])
        arrivals: list[tuple[int, float]] = []
        words: dict[str, int] = defaultdict(int)
        shown: set[str] = set()  # in a snapshot (joined mid-turn), not as a delta
        resumed_at: dict[int, float] = {}
        async with setup.async_client(index + 1) as watcher:
            last = await _watch(
                watcher, stream_url, None, arrivals, (words, shown), RECONNECT_AFTER
            )
        async with setup.async_client(index + 2 * (n > 1)) as resumer:
            opened = time.time()
            count_before = len(arrivals)
            await _watch(resumer, stream_url, last, arrivals, (words, shown), None)
            for seq, _ in arrivals[count_before:]:
                resumed_at[seq] = opened
        return arrivals, resumed_at, words, shown, turn_id
    except (httpx.HTTPError, RuntimeError, ValueError) as exc:
        return f"turn {index}: {type(exc).__name__}: {exc}"


async def _start_turn(client: httpx.AsyncClient, session_id: str, text: str) -> str:
    page = (await client.get(f"/e/{ENDPOINT}/sessions/{session_id}/")).text
    key = re.search(r'name="form_key" value="([^"]+)"', page)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page)
    if key is None or token is None:
        raise RuntimeError("the session page has no chat form")
    sent = await client.post(
        f"/e/{ENDPOINT}/chat/{session_id}/",
        data={"message": text, "form_key": key.group(1)},
        headers={"HX-Request": "true", "X-CSRFToken": token.group(1)},
    )
    found = re.search(r'sse-connect="([^"]+)"', sent.text)
    if found is None:
        raise RuntimeError(f"the dashboard did not start the turn (HTTP {sent.status_code})")
    return found.group(1)


async def _watch(client, url: str, last_id, arrivals: list, seen_words, stop_after) -> int | None:
    """Read the turn's SSE until ``end`` (or ``stop_after`` live deltas); the last delta id.

    ``seen_words`` is (count per word read in deltas, words first shown in a snapshot).
    """
    words, shown = seen_words
    headers = {"Last-Event-ID": str(last_id)} if last_id is not None else {}
    frame_id, event, seen = None, None, 0
    async with client.stream("GET", url, headers=headers) as answer:
        if answer.status_code != 200:
            raise RuntimeError(f"stream answered HTTP {answer.status_code}")
        async for line in answer.aiter_lines():
            if line.startswith("id: "):
                frame_id = int(line[4:])
            elif line.startswith("event: "):
                event = line[7:]
                if event == "end":
                    break
            elif line.startswith("data: ") and event == "snapshot" and not words:
                shown.update(re.findall(r"slow\d+", line))
            elif line.startswith("data: ") and event == "delta":
                arrivals.append((frame_id, time.time()))
                for word in line[6:].split():
                    words[word] += 1
                last_id, seen, event = frame_id, seen + 1, None
                if stop_after is not None and seen >= stop_after:
                    break
    return last_id


# -- 4. capped cores ------------------------------------------------------------------


def _capped(stdout, peer, scratch: Path, users: int, seconds: int) -> None:
    """1 and 3 workers, each in a cgroup of its own with a quarter of a core, in turns."""
    from devtools.services import Postgres, Redis

    caps, reason = _CpuCaps.open()
    share = QUOTA_US / PERIOD_US
    if caps is None:
        stdout.write(f"capped workers: skipped: {reason}")
        return
    stdout.write(
        f"capped workers: each worker process in a cgroup of its own ({caps.kind}, quota "
        f"{QUOTA_US} us per {PERIOD_US} us period = {share:.2f} core) under {caps.base}; "
        f"{' and '.join(map(str, CAPPED_WORKERS))} workers, one PostgreSQL, a Redis each, "
        f"loaded in turns ({SLICES} x {seconds / SLICES:.0f} s each)"
    )
    with caps, Postgres() as pg, contextlib.ExitStack() as stack:
        runs = []
        for workers in CAPPED_WORKERS:
            redis = stack.enter_context(Redis())
            services = {"DATABASE_URL": pg.url, "REDIS_URL": redis.url}
            setup = _Setup(scratch / "c", peer, services, workers=workers, caps=caps)
            if not runs:
                setup.prepare(stdout)
            plural = "s" if workers > 1 else ""
            runs.append((f"(c) {workers} capped worker{plural}, PostgreSQL + Redis", setup))
        for _, setup in runs:
            stack.enter_context(setup)
            _warm_up(setup)
        throttling = [caps.throttling(setup.groups) for _, setup in runs]
        figures = _load_in_turns(stdout, runs, users, seconds)
        for (label, setup), (periods, throttled) in zip(runs, throttling, strict=True):
            periods_after, throttled_after = caps.throttling(setup.groups)
            periods, throttled = periods_after - periods, throttled_after - throttled
            part = 100 * throttled / max(periods, 1)
            stdout.write(f"  {label}: throttled in {throttled} of {periods} periods ({part:.0f} %)")
    low, high = figures[0], figures[-1]
    ratio = high.rate / low.rate if low.rate else float("nan")
    met = "met" if ratio >= 2.7 and low.errors == high.errors == 0 else "NOT met"
    stdout.write(
        f"capped throughput {CAPPED_WORKERS[-1]}w / {CAPPED_WORKERS[0]}w: {ratio:.2f}x "
        f"({high.rate:.1f} / {low.rate:.1f} requests/s, errors {high.errors} / {low.errors}; "
        f"target: at least 2.7x with 0 errors: {met})"
    )
    per_request = ", ".join(
        f"{n}w {f.dashboard_ms:.1f} ms" for n, f in zip(CAPPED_WORKERS, figures, strict=True)
    )
    stdout.write(f"dashboard CPU per request, capped: {per_request}")


def _warm_up(setup) -> None:
    """One request of each kind per worker, not measured: templates, imports, pools."""
    rng = random.Random(-1)
    urls = {}
    while len(urls) < len(MIX):
        name, url = _pick_url(rng, setup.sessions)
        urls.setdefault(name, url)
    for port in setup.ports:
        base_url = f"http://127.0.0.1:{port}"
        with httpx.Client(base_url=base_url, cookies=setup.cookies, timeout=60) as browser:
            for url in urls.values():
                browser.get(url)


class _CpuCaps:
    """Cgroups with a CPU quota, one per process; all removed by ``close()``.

    cgroup v1 (the ``cpu`` controller: ``cpu.cfs_quota_us`` / ``cpu.cfs_period_us``)
    or v2 (``cpu.max``), created under this process's own cgroup. Processes still
    in a group when it is closed are moved back to that cgroup first.
    """

    PREFIX = "hermes-ui-bench-"

    def __init__(self, base: Path, kind: str):
        self.base, self.kind = base, kind
        self.created: list[Path] = []
        self._previous_sigterm = None

    @classmethod
    def open(cls) -> tuple[_CpuCaps | None, str]:
        """The caps, or ``None`` and why they cannot be had here."""
        found = _cpu_cgroup_dir()
        if found is None:
            return None, "no cgroup cpu controller is mounted (neither v1 cpu nor v2 cpu.max)"
        base, kind = found
        caps = cls(base, kind)
        caps._remove_stale()
        try:
            caps.close_group(caps.new_group())  # can a group be made and capped here?
        except OSError as exc:
            caps.close()
            hint = "" if os.geteuid() == 0 else "; writing cgroups needs root"
            return None, f"cannot create a capped cgroup under {base} ({kind}): {exc}{hint}"
        return caps, ""

    def new_group(self) -> Path:
        """A new capped group; its ``cgroup.procs`` is where a process joins it."""
        group = self.base / f"{self.PREFIX}{os.getpid()}-{len(self.created)}"
        group.mkdir()
        self.created.append(group)
        # A high weight (ten times the default) makes sure the worker gets its quarter
        # even when other work fills the machine; the quota alone caps it.
        if self.kind == "v1":
            (group / "cpu.cfs_period_us").write_text(str(PERIOD_US))
            (group / "cpu.cfs_quota_us").write_text(str(QUOTA_US))
            (group / "cpu.shares").write_text("10240")
        else:
            (group / "cpu.max").write_text(f"{QUOTA_US} {PERIOD_US}")
            (group / "cpu.weight").write_text("1000")
        return group

    def close_group(self, group: Path) -> None:
        """Move what is left in ``group`` back to our own cgroup, then remove it."""
        if not group.exists():
            return
        for _ in range(50):
            try:
                pids = (group / "cgroup.procs").read_text().split()
                for pid in pids:
                    with contextlib.suppress(OSError):  # it exited meanwhile
                        (self.base / "cgroup.procs").write_text(pid)
                group.rmdir()
                return
            except OSError:
                time.sleep(0.1)  # a process is still leaving

    def throttling(self, groups: list[Path]) -> tuple[int, int]:
        """(periods, throttled periods) of these groups so far."""
        periods = throttled = 0
        for group in groups:
            with contextlib.suppress(OSError):
                stat = dict(line.split() for line in (group / "cpu.stat").read_text().splitlines())
                periods += int(stat.get("nr_periods", 0))
                throttled += int(stat.get("nr_throttled", 0))
        return periods, throttled

    def close(self) -> None:
        for group in self.created:
            self.close_group(group)

    def _remove_stale(self) -> None:
        """Groups left by a bench that was killed outright (SIGKILL)."""
        for group in self.base.glob(f"{self.PREFIX}*"):
            owner = group.name[len(self.PREFIX) :].split("-")[0]
            if owner.isdigit() and not Path(f"/proc/{owner}").exists():
                self.close_group(group)

    def __enter__(self) -> _CpuCaps:
        def stop(signum, frame):
            raise SystemExit(128 + signum)  # unwind, so the groups are removed

        self._previous_sigterm = signal.signal(signal.SIGTERM, stop)
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.close()
        finally:
            signal.signal(signal.SIGTERM, self._previous_sigterm or signal.SIG_DFL)


def _cpu_cgroup_dir() -> tuple[Path, str] | None:
    """This process's cgroup directory of the cpu controller, and "v1" or "v2"."""
    own = {}  # controller (or "" for v2) -> this process's cgroup path
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            own[controller] = path
    v2 = None
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        root, point = fields[3], fields[4]
        fstype, options = line.split(" - ", 1)[1].split()[0], line.split()[-1].split(",")
        if fstype == "cgroup" and "cpu" in options and "cpu" in own:
            return Path(point) / _below(own["cpu"], root), "v1"
        if fstype == "cgroup2" and "" in own:
            v2 = Path(point) / _below(own[""], root)
    if v2 is not None and "cpu" in _words(v2 / "cgroup.controllers"):
        if "cpu" not in _words(v2 / "cgroup.subtree_control"):
            with contextlib.suppress(OSError):  # refused where the group has processes
                (v2 / "cgroup.subtree_control").write_text("+cpu")
        if "cpu" in _words(v2 / "cgroup.subtree_control"):
            return v2, "v2"
    return None


def _below(path: str, root: str) -> str:
    """``path`` relative to a mount's ``root`` (a container sees its own cgroup as /)."""
    if root != "/" and (path == root or path.startswith(root + "/")):
        path = path[len(root) :]
    return path.lstrip("/")


def _words(path: Path) -> list[str]:
    try:
        return path.read_text().split()
    except OSError:
        return []


# -- plumbing -----------------------------------------------------------------------


class _Setup:
    """One dashboard: its database, its caches, and its uvicorn workers (one port each)."""

    def __init__(self, data_dir: Path, peer, services: dict, *, workers: int, caps=None):
        from devtools.peer.launcher import free_port

        data_dir.mkdir(parents=True, exist_ok=True)
        self.workers = workers
        self.caps: _CpuCaps | None = caps  # each worker in a capped cgroup of its own
        self.groups: list[Path] = []
        self.peer = peer
        self.services = services
        self.sessions = _env_int("SCALE_BENCH_SESSIONS", 10_000)
        self.ports = [free_port() for _ in range(workers)]
        self.db = data_dir / "hermes_ui.sqlite3"
        self.env = {
            **os.environ,
            **services,
            "HERMES_UI_DATA_DIR": str(data_dir),
            "HERMES_API_URL": peer.base_url,
            "HERMES_API_KEY": peer.key,
            "HERMES_ENDPOINT_ID": ENDPOINT,
            "HERMES_INDEX_REFRESH_SECONDS": "0",  # the index is synced once, before the load
            "HERMES_CHAT_MAX_TURNS_PER_USER": "100",  # one bench user runs every turn
            "HERMES_UI_LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
        }
        self.processes: list[subprocess.Popen] = []
        self.cookies: dict | None = None
        self.error_kinds: dict[str, int] = {}

    def manage(self, *args: str, timeout: float = 900) -> str:
        argv = [sys.executable, str(REPO / "manage.py"), *args]
        done = subprocess.run(
            argv, env=self.env, cwd=REPO, capture_output=True, text=True, timeout=timeout
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {args[0]} failed: {done.stderr[-1500:]}")
        return done.stdout

    def prepare(self, stdout) -> None:
        self.manage("migrate", "-v", "0")
        self.manage("create_user", "bench", "--role", "support", "--password", PASSWORD)
        started = time.perf_counter()
        self.manage("run_periodic", "index")
        stdout.write(
            f"index synced for {'PostgreSQL' if self.services else 'SQLite'} in "
            f"{time.perf_counter() - started:.1f} s"
        )

    def __enter__(self) -> _Setup:
        try:
            for port in self.ports:
                argv = [sys.executable, "-m", "uvicorn", "hermes_ui.asgi:application"]
                argv += ["--host", "127.0.0.1", "--port", str(port)]
                argv += ["--no-access-log", "--log-level", "warning"]
                if self.caps is not None:
                    # The shell joins the group, then becomes the worker (same pid): the
                    # worker runs capped from its first instruction, its threads with it.
                    group = self.caps.new_group()
                    self.groups.append(group)
                    join = 'echo $$ > "$0" && exec "$@"'
                    argv = ["/bin/sh", "-c", join, str(group / "cgroup.procs"), *argv]
                self.processes.append(subprocess.Popen(argv, env=self.env, cwd=REPO))
            for port in self.ports:
                _wait_healthy(f"http://127.0.0.1:{port}")
            self.cookies = _login(f"http://127.0.0.1:{self.ports[0]}")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc) -> None:
        for process in self.processes:
            process.terminate()
        for process in self.processes:
            try:
                process.wait(15)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(5)
        self.processes = []
        for group in self.groups:
            self.caps.close_group(group)

    def async_client(self, index: int) -> httpx.AsyncClient:
        """A browser of the bench user, pinned to worker ``index`` mod N."""
        port = self.ports[index % len(self.ports)]
        return httpx.AsyncClient(
            base_url=f"http://127.0.0.1:{port}", cookies=self.cookies, timeout=REQUEST_TIMEOUT
        )

    def event_times(self, turn_id: int) -> dict[int, float]:
        """seq -> the peer's ``ts`` of each delta the owning worker stored."""
        query = (
            "SELECT seq, data FROM chat_turnevent WHERE turn_id = %s AND name = 'assistant.delta'"
        )
        if "DATABASE_URL" in self.services:
            import psycopg

            with psycopg.connect(self.services["DATABASE_URL"]) as conn:
                rows = conn.execute(query, (turn_id,)).fetchall()
        else:
            with sqlite3.connect(self.db) as conn:
                rows = conn.execute(query.replace("%s", "?"), (turn_id,)).fetchall()
        return {
            seq: (data if isinstance(data, dict) else json.loads(data))["ts"] for seq, data in rows
        }


def _wait_healthy(base_url: str) -> None:
    deadline = time.monotonic() + 120  # a capped worker starts four times slower
    while time.monotonic() < deadline:
        try:
            if httpx.get(base_url + "/healthz", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.1)
    raise RuntimeError(f"the dashboard at {base_url} did not start")


def _login(base_url: str) -> dict:
    """One login (PBKDF2 is slow on purpose); every simulated user shares its session."""
    with httpx.Client(base_url=base_url, timeout=60) as first:
        page = first.get("/accounts/login/").text
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
        answer = first.post(
            "/accounts/login/",
            data={"username": "bench", "password": PASSWORD, "csrfmiddlewaretoken": token},
        )
        if answer.status_code != 302:
            raise RuntimeError(f"login failed (HTTP {answer.status_code})")
        return dict(first.cookies)


if __name__ == "__main__":
    _measure_page_cost()
