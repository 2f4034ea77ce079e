"""Loopback servers that misbehave like a Hermes would, and the scale tests' load.

- ``FaultServer(upstream)`` never answers, or trickles a valid answer a byte at a
  time; ``heal()`` turns it into a relay to the real peer.
- ``SlowServer(behaviour)`` trickles or stalls every answer (the deadline tests).
- ``SlowLists(upstream)`` relays to the real peer, delaying list and session GETs.
- ``Load`` and friends: client threads recording every answer (tests/scale).
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from urllib.parse import urlsplit

import httpx

_BODY = json.dumps({"object": "list", "data": [], "has_more": False}).encode()
TRICKLED_ANSWER = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    + f"Content-Length: {len(_BODY)}\r\nConnection: close\r\n\r\n".encode()
    + _BODY
)


class FaultServer:
    def __init__(self, upstream: str, *, trickle: float | None = None):
        parts = urlsplit(upstream)
        self.upstream = (parts.hostname, parts.port)
        self.trickle = trickle
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.accepted = 0  # connections the dashboard opened while the fault lasted
        self.healed = threading.Event()
        self._closed = threading.Event()
        self._lock = threading.Lock()
        self._held: set[socket.socket] = set()
        threading.Thread(target=self._accept, name=f"fault-{self.port}", daemon=True).start()

    def heal(self) -> None:
        """From now on, answer new connections like a healthy Hermes (relay to ``upstream``)."""
        self.healed.set()

    def close(self) -> None:
        self._closed.set()
        with contextlib.suppress(OSError):
            self.listener.close()
        self._drop_held()

    def __enter__(self) -> FaultServer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # -- the server's side -------------------------------------------------

    def _accept(self) -> None:
        while not self._closed.is_set():
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return  # closed
            if self.healed.is_set():
                target = self._relay
            else:
                self.accepted += 1
                target = self._misbehave
            threading.Thread(target=target, args=(conn,), daemon=True).start()

    def _misbehave(self, conn: socket.socket) -> None:
        with self._lock:
            self._held.add(conn)
        try:
            if self.trickle is None:
                _drain(conn, self._closed.is_set)  # read whatever comes, answer nothing
            else:
                self._trickle(conn)
        finally:
            with self._lock:
                self._held.discard(conn)
            _close(conn)

    def _trickle(self, conn: socket.socket) -> None:
        _read_request_head(conn)
        for index in range(len(TRICKLED_ANSWER)):
            try:
                conn.sendall(TRICKLED_ANSWER[index : index + 1])
            except OSError:
                return  # the dashboard gave up and closed the connection
            if self._closed.wait(self.trickle):
                return

    def _relay(self, conn: socket.socket) -> None:
        try:
            upstream = socket.create_connection(self.upstream, timeout=10)
        except OSError:
            _close(conn)
            return
        upstream.settimeout(None)
        conn.settimeout(None)
        pump = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
        pump.start()
        _pump(conn, upstream)
        pump.join(60)

    def _drop_held(self) -> None:
        with self._lock:
            held, self._held = list(self._held), set()
        for conn in held:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)


def _drain(conn: socket.socket, stop: Callable[[], bool]) -> None:
    conn.settimeout(0.2)
    while not stop():
        try:
            if not conn.recv(65536):
                return  # the dashboard closed it
        except TimeoutError:
            continue
        except OSError:
            return


def _read_request_head(conn: socket.socket) -> None:
    conn.settimeout(5)
    seen = b""
    with contextlib.suppress(OSError):
        while b"\r\n\r\n" not in seen and len(seen) < 65536:
            chunk = conn.recv(65536)
            if not chunk:
                return
            seen += chunk


def _pump(source: socket.socket, sink: socket.socket) -> None:
    try:
        while chunk := source.recv(65536):
            sink.sendall(chunk)
    except OSError:
        pass
    finally:
        for sock in (source, sink):
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)


def _close(conn: socket.socket) -> None:
    with contextlib.suppress(OSError):
        conn.close()


# -- slow answers (tests/hermes/test_deadline.py, outage pages) --------------

BODY_HEADER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"


class SlowServer:
    """Answers every request the same way and never finishes: ``trickle_body``,
    ``trickle_headers``, ``stall_body`` or ``silent``; it gives up after ``give_up``
    seconds, so a broken deadline fails a test instead of hanging it."""

    def __init__(self, behaviour: str, every: float = 0.2, give_up: float = 8.0):
        self.behaviour = behaviour
        self.every = every
        self.give_up = give_up
        self.stopped = threading.Event()
        self.accepted = 0
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._threads: list[threading.Thread] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}"

    def start(self) -> SlowServer:
        self._spawn(self._accept)
        return self

    def stop(self) -> None:
        self.stopped.set()
        self._listener.close()
        for thread in self._threads:
            thread.join(5)

    def _spawn(self, target, *args) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)
        self._threads.append(thread)
        thread.start()

    def _accept(self) -> None:
        self._listener.settimeout(0.05)
        while not self.stopped.is_set():
            try:
                conn, _ = self._listener.accept()
            except (TimeoutError, OSError):
                continue
            self.accepted += 1
            self._spawn(self._answer, conn)

    def _answer(self, conn: socket.socket) -> None:
        with conn, contextlib.suppress(OSError):
            conn.settimeout(self.give_up)
            request = b""
            while b"\r\n\r\n" not in request:
                chunk = conn.recv(65536)
                if not chunk:
                    return
                request += chunk
            if self.behaviour == "silent":
                self.stopped.wait(self.give_up)
                return
            if self.behaviour == "stall_body":
                conn.sendall(BODY_HEADER)
                if not self.stopped.wait(self.every):
                    conn.sendall(b" ")
                self.stopped.wait(self.give_up)
                return
            if self.behaviour == "trickle_body":
                conn.sendall(BODY_HEADER)
                drip = b" "
            else:  # trickle_headers: a header line that never ends
                conn.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
                drip = b"a"
            for _ in range(int(self.give_up / self.every)):
                if self.stopped.wait(self.every):
                    return
                conn.sendall(drip)


@contextlib.contextmanager
def slow_server(behaviour: str, **kwargs) -> Iterator[SlowServer]:
    server = SlowServer(behaviour, **kwargs).start()
    try:
        yield server
    finally:
        server.stop()


# -- slow lists: a relay delaying list and session GETs ------------------------


class SlowLists:
    """Relays to ``upstream``; a list call waits ``list_delay`` first and a session GET
    ``get_delay`` (a number, or a function of the call's number from 1). ``calls`` and
    ``gets`` record (arrived, finished); ``plain_404_gets`` answers GETs with a bare 404."""

    def __init__(self, upstream: str, *, list_delay: float = 0.0, get_delay=0.0):
        self.list_delay = list_delay
        self.get_delay = get_delay
        self.plain_404_gets = False
        self.calls: list[tuple[float, float]] = []  # (arrived, finished), monotonic
        self.gets: list[tuple[float, float]] = []
        self._upstream = httpx.Client(base_url=upstream, timeout=60)
        relay = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def _relay(self):
                arrived = time.monotonic()
                listing = self.command == "GET" and urlsplit(self.path).path == "/api/sessions"
                path = urlsplit(self.path).path
                getting = (
                    self.command == "GET"
                    and path.startswith("/api/sessions/")
                    and "/" not in path.removeprefix("/api/sessions/")
                )
                if listing:
                    delay = relay.list_delay
                    time.sleep(delay(len(relay.calls) + 1) if callable(delay) else delay)
                if getting:
                    delay = relay.get_delay
                    time.sleep(delay(len(relay.gets) + 1) if callable(delay) else delay)
                    if relay.plain_404_gets:
                        relay.gets.append((arrived, time.monotonic()))
                        payload = b"404: Not Found"
                        self.send_response(404)
                        self.send_header("Content-Type", "text/plain; charset=utf-8")
                        self.send_header("Content-Length", str(len(payload)))
                        self.end_headers()
                        self.wfile.write(payload)
                        return
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length) if length else None
                headers = {
                    k: v
                    for k, v in self.headers.items()
                    if k.lower() not in {"host", "content-length", "connection"}
                }
                answer = relay._upstream.request(
                    self.command, self.path, content=body, headers=headers
                )
                payload = answer.content
                self.send_response(answer.status_code)
                for k, v in answer.headers.items():
                    if k.lower() not in {
                        "content-length",
                        "transfer-encoding",
                        "connection",
                        "content-encoding",
                    }:
                        self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
                if listing:
                    relay.calls.append((arrived, time.monotonic()))
                if getting:
                    relay.gets.append((arrived, time.monotonic()))

            do_GET = do_POST = do_PATCH = do_DELETE = _relay

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def pauses(self) -> list[float]:
        """Seconds between the end of each list call and the arrival of the next."""
        return [later[0] - earlier[1] for earlier, later in pairwise(list(self.calls))]

    def get_pauses(self) -> list[float]:
        """Seconds between the end of each session GET and the arrival of the next."""
        return [later[0] - earlier[1] for earlier, later in pairwise(list(self.gets))]

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._upstream.close()

    def __enter__(self) -> SlowLists:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# -- load ----------------------------------------------------------------------


@dataclass
class Sample:
    url: str
    started: float  # monotonic
    seconds: float
    status: int  # 0: no HTTP answer (connection error, timeout)
    text: str = ""


@dataclass
class Load:
    """Several client threads sending requests in a bounded loop, every answer recorded."""

    samples: list[Sample] = field(default_factory=list)
    stop: threading.Event = field(default_factory=threading.Event)
    _threads: list[threading.Thread] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, make_client, urls: list[str], *, until: float, keep_text=False, pause=0.0):
        """One thread requesting ``urls`` in turn until ``stop`` or the monotonic ``until``."""

        def loop():
            client = make_client()
            index = 0
            try:
                while not self.stop.is_set() and time.monotonic() < until:
                    url = urls[index % len(urls)]
                    index += 1
                    self.samples_add(_sample(client, url, keep_text))
                    if pause:
                        self.stop.wait(pause)
            finally:
                client.close()

        thread = threading.Thread(target=loop, daemon=True)
        thread.start()
        self._threads.append(thread)

    def samples_add(self, sample: Sample) -> None:
        with self._lock:
            self.samples.append(sample)

    def join(self, timeout: float = 120) -> None:
        ends = time.monotonic() + timeout
        for thread in self._threads:
            thread.join(max(0.0, ends - time.monotonic()))
        assert not any(t.is_alive() for t in self._threads), "a load thread did not stop"

    def of(self, prefix: str) -> list[Sample]:
        with self._lock:
            return [s for s in self.samples if s.url.startswith(prefix)]


def _sample(client, url: str, keep_text: bool) -> Sample:
    import httpx

    started = time.monotonic()
    try:
        answer = client.get(url)
    except httpx.HTTPError as exc:
        return Sample(url, started, time.monotonic() - started, 0, repr(exc))
    text = answer.text if keep_text or answer.status_code >= 400 else ""
    return Sample(url, started, time.monotonic() - started, answer.status_code, text)


def p95(samples: list[Sample]) -> float:
    times = sorted(s.seconds for s in samples)
    return times[min(len(times) - 1, int(0.95 * len(times)))] if times else 0.0


def report(name: str, samples: list[Sample], **extra) -> str:
    """One line of figures for the closing note (printed by the tests, see ``-s``)."""
    errors = sum(1 for s in samples if s.status == 0 or s.status >= 500)
    line = (
        f"FAULTS {name}: requests={len(samples)} errors={errors} "
        f"p95={p95(samples):.2f}s max={max((s.seconds for s in samples), default=0):.2f}s"
    )
    line += "".join(f" {key}={value}" for key, value in extra.items())
    print(line, flush=True)
    return line


def new_database(database_url: str, template: str = "", prefix: str = "faults") -> str:
    """A new database in the cluster of ``database_url``, empty or a copy of ``template``
    (a database of that cluster no one is connected to); its URL."""
    import secrets

    import psycopg

    name = f"{prefix}_{secrets.token_hex(4)}"
    base = database_url.rsplit("/", 1)[0]
    admin = base.replace("postgres://", "postgresql://") + "/postgres"
    copy = f' TEMPLATE "{template}"' if template else ""
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"{copy}')
    return f"{base}/{name}"


def worker_pids(supervisor_pid: int) -> set[int]:
    """The uvicorn worker processes (multiprocessing spawns) under ``supervisor_pid``."""
    from pathlib import Path

    found = set()
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes()
        except OSError:
            continue  # gone meanwhile
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == supervisor_pid and b"spawn_main" in cmdline:
            found.add(int(proc.name))
    return found


def slow_upload(port: int, path: str, *, every: float, limit: float) -> tuple:
    """POST a body of 1,000,000 bytes (declared) to ``path``, sending a byte every ``every`` s.

    Returns (status line, seconds from the end of the headers to the answer); gives up
    after ``limit`` seconds (status line "").
    """
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        "Content-Type: application/x-www-form-urlencoded\r\n"
        "Content-Length: 1000000\r\n\r\n"
    ).encode()
    with socket.create_connection(("127.0.0.1", port), timeout=limit) as conn:
        conn.sendall(head)
        sent_at = time.monotonic()
        conn.settimeout(every)
        answer = b""
        while b"\r\n" not in answer and time.monotonic() < sent_at + limit:
            try:
                chunk = conn.recv(4096)
            except TimeoutError:
                with contextlib.suppress(OSError):
                    conn.sendall(b"x")
                continue
            if not chunk:
                break
            answer += chunk
        return answer.split(b"\r\n", 1)[0].decode(), time.monotonic() - sent_at
