"""Chat relay benchmark: added latency per delta, and pages while 20 turns stream.

One run starts a real peer (hermes-agent 0.19.0 with the stub model, 20 ms
between deltas) and the dashboard under uvicorn on its own database, then:

1. Relay overhead: for each ``assistant.delta`` the time from the peer
   emitting it (its ``ts`` field) to a client receiving it, reading the
   peer's stream directly and reading the dashboard's SSE fragments, in
   alternating turns of the same run. The difference is what the relay adds.
2. Concurrency: page latency (a session page, which also calls Hermes, and a
   turn page, which is the dashboard alone) for a few users loading pages
   in a loop, without and then with 20 concurrent streamed turns watched by
   20 SSE clients.

``python manage.py bench --only chat``
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, free_port

REPO = Path(__file__).resolve().parents[2]
PASSWORD = "bench-password-123"
WORDS = 60  # deltas per measured turn
TURNS = 6  # measured turns per path
STREAMS = 20
PAGE_USERS = 4
PAGE_SECONDS = 6.0
CONCURRENT_TURN = "[[slow:40]] concurrent"
STAGGER = 0.1  # seconds between starting two of the concurrent turns


def run(stdout) -> None:
    with tempfile.TemporaryDirectory(prefix="chat-bench-") as tmp:
        peer = Peer(PeerConfig(home=Path(tmp) / "peer", peer_python=ensure_peer_venv()))
        peer.start()
        try:
            peer.wait_healthy(60)
            ui = _Dashboard(Path(tmp) / "ui", peer).start()
            try:
                _overhead(stdout, peer, ui)
                _concurrency(stdout, peer, ui)
            finally:
                ui.stop()
        finally:
            peer.stop()


# -- 1. relay overhead per delta ----------------------------------------------


def _overhead(stdout, peer, ui) -> None:
    words = " ".join(f"word{i}" for i in range(WORDS - 1))
    direct, relayed = [], []
    _direct_turn(peer, _session(peer), "warm up")  # the first turn after start is slow
    for _ in range(TURNS):
        direct += _direct_turn(peer, _session(peer), words)
        relayed += _relayed_turn(peer, ui, _session(peer), words)
    d_med, d_p95 = _median(direct), _p95(direct)
    r_med, r_p95 = _median(relayed), _p95(relayed)
    stdout.write(
        f"relay overhead per delta ({len(relayed)} relayed / {len(direct)} direct "
        f"deltas, {TURNS} turns each, one run):"
    )
    stdout.write(f"  peer -> client directly:        median {d_med:6.2f} ms  p95 {d_p95:6.2f} ms")
    stdout.write(f"  peer -> dashboard -> browser:   median {r_med:6.2f} ms  p95 {r_p95:6.2f} ms")
    stdout.write(
        f"  added by the relay:             median {r_med - d_med:6.2f} ms  "
        f"p95 {r_p95 - d_p95:6.2f} ms  (target: < 5 ms at the median)"
    )


def _direct_turn(peer, session_id: str, text: str) -> list[float]:
    latencies = []
    with (
        httpx.Client(base_url=peer.base_url, headers=peer.auth_headers, timeout=60) as http,
        http.stream(
            "POST", f"/api/sessions/{session_id}/chat/stream", json={"message": text}
        ) as response,
    ):
        event = None
        for line in response.iter_lines():
            if line.startswith("event: "):
                event = line[7:]
            elif line.startswith("data: ") and event == "assistant.delta":
                latencies.append((time.time() - json.loads(line[6:])["ts"]) * 1000)
    return latencies


def _relayed_turn(peer, ui, session_id: str, text: str) -> list[float]:
    client = ui.client()
    url = _start_turn(ui, client, session_id, text)
    arrivals = _watch(client, url)
    client.close()
    emitted = ui.event_times(int(url.strip("/").split("/")[-2]))
    return [(at - emitted[seq]) * 1000 for seq, at in arrivals if seq in emitted]


def _watch(client, url: str) -> list[tuple[int, float]]:
    """(seq, arrival time) of every delta fragment until the turn ends."""
    arrivals, frame_id, event = [], None, None
    with client.stream("GET", url, timeout=120) as response:
        for line in response.iter_lines():
            if line.startswith("id: "):
                frame_id = int(line[4:])
            elif line.startswith("event: "):
                event = line[7:]
                if event == "end":
                    break
            elif line.startswith("data: ") and event == "delta":
                arrivals.append((frame_id, time.time()))
                event = None
    return arrivals


# -- 2. pages while 20 turns stream ---------------------------------------------


def _concurrency(stdout, peer, ui) -> None:
    reader = ui.client()
    page_session = _session(peer)
    _start_turn(ui, reader, page_session, "a little history")
    time.sleep(2)
    pages = {
        "session page": f"/e/local/sessions/{page_session}/",  # the dashboard and Hermes
        "turn page": f"/e/local/turns/{ui.last_turn_id()}/",  # the dashboard alone
    }
    cpu = ui.cpu_seconds()
    quiet = _load_pages(ui, pages, PAGE_SECONDS)
    cpu_quiet, cpu = ui.cpu_seconds() - cpu, ui.cpu_seconds()
    relayed = _streams(peer, ui, pages, relay=True)
    cpu_relayed, cpu = ui.cpu_seconds() - cpu, ui.cpu_seconds()
    direct = _streams(peer, ui, pages, relay=False)
    cpu_direct = ui.cpu_seconds() - cpu
    stdout.write(
        f"pages while {STREAMS} turns stream ({PAGE_USERS} users loading both pages "
        f"in a loop for {PAGE_SECONDS:g} s; turns of 40 deltas 200 ms apart):"
    )
    for name in pages:
        for label, values in (
            (" no streams", quiet[name]),
            (f" {STREAMS} relayed streams", relayed[0][name]),
            (f" {STREAMS} direct streams (no relay)", direct[0][name]),
        ):
            stdout.write(
                f"  {name:12s}{label:32s} median {_median(values):7.1f} ms  "
                f"p95 {_p95(values):7.1f} ms  (n={len(values)})"
            )
    stdout.write(
        f"  dashboard CPU: {cpu_quiet:.1f} s for the quiet window, {cpu_relayed:.1f} s for the "
        f"relayed run ({relayed[2]:.0f} s), {cpu_direct:.1f} s for the direct run "
        f"({direct[2]:.0f} s); pages are served while the machine's 2 cores also run Hermes"
    )
    for label, (_, latencies, seconds) in (("relayed", relayed), ("direct", direct)):
        stdout.write(
            f"  {STREAMS} {label} streams: {len(latencies)} deltas, all turns done in "
            f"{seconds:.1f} s; delta latency median {_median(latencies):.2f} ms "
            f"p95 {_p95(latencies):.2f} ms"
        )


def _streams(peer, ui, pages: dict, *, relay: bool):
    """Start STREAMS turns (relayed or read directly), load pages meanwhile, wait for the end."""
    latencies, threads, started = [], [], time.monotonic()

    def relayed(client, url):
        arrivals = _watch(client, url)
        emitted = ui.event_times(int(url.strip("/").split("/")[-2]))
        latencies.extend((at - emitted[seq]) * 1000 for seq, at in arrivals if seq in emitted)

    for _ in range(STREAMS):
        session_id = _session(peer)
        if relay:
            client = ui.client()
            args = (client, _start_turn(ui, client, session_id, CONCURRENT_TURN))
            thread = threading.Thread(target=relayed, args=args)
        else:
            thread = threading.Thread(
                target=lambda s=session_id: latencies.extend(_direct_turn(peer, s, CONCURRENT_TURN))
            )
        thread.start()
        threads.append(thread)
        time.sleep(STAGGER)
    timings = _load_pages(ui, pages, PAGE_SECONDS)
    for thread in threads:
        thread.join(300)
    return timings, latencies, time.monotonic() - started


def _load_pages(ui, pages: dict, seconds: float) -> dict[str, list[float]]:
    timings = {name: [] for name in pages}
    stop = time.monotonic() + seconds

    def user():
        client = ui.client()
        while time.monotonic() < stop:
            for name, url in pages.items():
                started = time.perf_counter()
                assert client.get(url).status_code == 200
                timings[name].append((time.perf_counter() - started) * 1000)
            time.sleep(0.05)
        client.close()

    threads = [threading.Thread(target=user) for _ in range(PAGE_USERS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return timings


# -- plumbing ---------------------------------------------------------------------


def _session(peer) -> str:
    session_id = f"bench-chat-{time.monotonic_ns()}"
    response = httpx.post(
        peer.base_url + "/api/sessions",
        headers=peer.auth_headers,
        json={"id": session_id},
        timeout=10,
    )
    response.raise_for_status()
    return session_id


def _start_turn(ui, client, session_id: str, text: str) -> str:
    page = client.get(f"/e/local/sessions/{session_id}/").text
    key = re.search(r'name="form_key" value="([^"]+)"', page).group(1)
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    sent = client.post(
        f"/e/local/sessions/{session_id}/chat/",
        data={"message": text, "form_key": key},
        headers={"HX-Request": "true", "X-CSRFToken": token},
    )
    found = re.search(r'sse-connect="([^"]+)"', sent.text)
    if found is None:
        raise RuntimeError(f"the dashboard did not start the turn (HTTP {sent.status_code})")
    return found.group(1)


def _median(values) -> float:
    return statistics.median(values) if values else float("nan")


def _p95(values) -> float:
    return statistics.quantiles(values, n=20)[-1] if len(values) >= 20 else float("nan")


class _Dashboard:
    """The dashboard under uvicorn (one process: the relay lives in it)."""

    def __init__(self, data_dir: Path, peer):
        data_dir.mkdir(parents=True)
        self.port = free_port()
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.db = data_dir / "hermes_ui.sqlite3"
        self.env = {
            **os.environ,
            "HERMES_UI_DATA_DIR": str(data_dir),
            "HERMES_API_URL": peer.base_url,
            "HERMES_API_KEY": peer.key,
            "HERMES_ENDPOINT_ID": "local",
            "HERMES_UI_LOG_LEVEL": "WARNING",
            "DJANGO_SETTINGS_MODULE": "hermes_ui.settings",
        }
        self.process = None
        self._cookies = None

    def start(self) -> _Dashboard:
        manage = [sys.executable, str(REPO / "manage.py")]
        subprocess.run([*manage, "migrate", "-v", "0"], env=self.env, check=True, cwd=REPO)
        subprocess.run(
            [*manage, "create_user", "bench", "--role", "support", "--password", PASSWORD],
            env=self.env,
            check=True,
            cwd=REPO,
            capture_output=True,
        )
        self.process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "hermes_ui.asgi:application",
                "--host",
                "127.0.0.1",
                "--port",
                str(self.port),
                "--no-access-log",
                "--log-level",
                "warning",
            ],
            env=self.env,
            cwd=REPO,
        )
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base_url + "/healthz", timeout=1).status_code == 200:
                    return self
            except httpx.HTTPError:
                time.sleep(0.1)
        raise RuntimeError("the dashboard did not start under uvicorn")

    def client(self) -> httpx.Client:
        """A client of the bench user; one login (PBKDF2 is slow on purpose) shared by all."""
        if self._cookies is None:
            with httpx.Client(base_url=self.base_url, timeout=60) as first:
                page = first.get("/accounts/login/").text
                token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
                first.post(
                    "/accounts/login/",
                    data={"username": "bench", "password": PASSWORD, "csrfmiddlewaretoken": token},
                )
                self._cookies = dict(first.cookies)
        return httpx.Client(base_url=self.base_url, timeout=60, cookies=self._cookies)

    def event_times(self, turn_id: int) -> dict[int, float]:
        """seq -> the peer's ``ts`` of each delta the relay stored for that turn."""
        with sqlite3.connect(self.db) as db:
            rows = db.execute(
                "SELECT seq, data FROM chat_turnevent WHERE turn_id = ? AND "
                "name = 'assistant.delta'",
                (turn_id,),
            ).fetchall()
        return {seq: json.loads(data)["ts"] for seq, data in rows}

    def last_turn_id(self) -> int:
        with sqlite3.connect(self.db) as db:
            return db.execute("SELECT max(id) FROM chat_turn").fetchone()[0]

    def cpu_seconds(self) -> float:
        """User + system CPU time of the uvicorn process (Linux /proc)."""
        try:
            fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            return float("nan")
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
