"""Misbehaving Hermes servers and a load generator, for tests/scale/test_faults.py.

Each fault server is a small threaded socket server on a free loopback port:

- ``FaultServer(upstream)`` accepts a connection and never answers;
- ``FaultServer(upstream, trickle=2.0)`` reads the request, then sends a valid
  ``/api/sessions`` answer one byte every 2 s (status line and headers too).

``heal()`` makes it a healthy Hermes at the same address: every new
connection is relayed, byte for byte, to ``upstream`` (the real peer); the
ones it holds keep misbehaving until the dashboard gives up on them.
``close()`` stops it.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import urlsplit

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


def new_database(database_url: str) -> str:
    """A new, empty database in the cluster of ``database_url``; its URL."""
    import secrets

    import psycopg

    name = f"faults_{secrets.token_hex(4)}"
    base = database_url.rsplit("/", 1)[0]
    admin = base.replace("postgres://", "postgresql://") + "/postgres"
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
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
