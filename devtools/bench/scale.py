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

The load generator is ``httpx.AsyncClient`` in this process, on loopback.
``SCALE_BENCH_USERS`` (50), ``SCALE_BENCH_SECONDS`` (60), ``SCALE_BENCH_TURNS``
(20) and ``SCALE_BENCH_SESSIONS`` (10000) shorten a run. ``SCALE_BENCH_ONLY=page``
runs only step 1 (with ``SCALE_BENCH_SESSIONS=100`` it takes seconds, for
iterating on the session page). Step 1 also times the page through the worker
(uvicorn, one browser), HTTP and the ASGI layer included.
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
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


def _env_int(name: str, default: int) -> int:
    raw = os.environ.get(name, "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else default


def run(stdout) -> None:
    from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, run_seed
    from devtools.services import Postgres, Redis

    users = _env_int("SCALE_BENCH_USERS", 50)
    seconds = _env_int("SCALE_BENCH_SECONDS", 60)
    turns = _env_int("SCALE_BENCH_TURNS", 20)
    count = _env_int("SCALE_BENCH_SESSIONS", 10_000)
    workers = _env_int("WEB_CONCURRENCY", os.cpu_count() or 1)
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
            single = _Setup(Path(scratch) / "a", peer, {}, workers=1)
            single.prepare(stdout)
            _page_cost(stdout, single)
            figures = {}
            with single:
                _page_over_http(stdout, single)
                if os.environ.get("SCALE_BENCH_ONLY") == "page":
                    return
                figures["a"] = _load(stdout, "(a) 1 worker, SQLite", single, users, seconds)
            with Postgres() as pg, Redis() as redis:
                services = {"DATABASE_URL": pg.url, "REDIS_URL": redis.url}
                shared = _Setup(Path(scratch) / "b", peer, services, workers=workers)
                shared.prepare(stdout)
                with shared:
                    label = f"(b) {workers} workers, PostgreSQL + Redis"
                    figures["b"] = _load(stdout, label, shared, users, seconds)
                    ratio = figures["b"] / figures["a"] if figures["a"] else float("nan")
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

    from hermes_ui.endpoints import get_endpoint
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


def _load(stdout, label: str, setup, users: int, seconds: int) -> float:
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
    for name, _ in MIX:
        values = sorted(timings[name])
        stdout.write(
            f"  {name:13s} n={len(values):5d}  p50 {_pct(values, 50):7.0f} ms  "
            f"p95 {_pct(values, 95):7.0f} ms  p99 {_pct(values, 99):7.0f} ms  "
            f"errors {errors[name]}"
        )
    for detail, n in sorted(setup.error_kinds.items()):
        stdout.write(f"  error: {detail} x{n}")
    return rate


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
        return name, f"/e/{ENDPOINT}/index/"
    if name == "search":
        return name, f"/e/{ENDPOINT}/index/?q=session+{rng.randrange(count):05d}"
    if name == "session page":
        return name, f"/e/{ENDPOINT}/sessions/{session_id}/"
    if name == "live list":
        return name, f"/e/{ENDPOINT}/sessions/"
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


# -- plumbing -----------------------------------------------------------------------


class _Setup:
    """One dashboard: its database, its caches, and its uvicorn workers (one port each)."""

    def __init__(self, data_dir: Path, peer, services: dict, *, workers: int):
        from devtools.peer.launcher import free_port

        data_dir.mkdir(parents=True)
        self.workers = workers
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
        self.manage("index_refresher", "--once")
        stdout.write(
            f"index synced for {'PostgreSQL' if self.services else 'SQLite'} in "
            f"{time.perf_counter() - started:.1f} s"
        )

    def __enter__(self) -> _Setup:
        for port in self.ports:
            self.processes.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "uvicorn",
                        "hermes_ui.asgi:application",
                        "--host",
                        "127.0.0.1",
                        "--port",
                        str(port),
                        "--no-access-log",
                        "--log-level",
                        "warning",
                    ],
                    env=self.env,
                    cwd=REPO,
                )
            )
        for port in self.ports:
            _wait_healthy(f"http://127.0.0.1:{port}")
        self.cookies = _login(f"http://127.0.0.1:{self.ports[0]}")
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
    deadline = time.monotonic() + 60
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
