"""Misbehaving HTTP servers on a loopback socket, for the deadline and outage-page tests.

Each accepts connections on ``127.0.0.1`` and answers every request the
same way: ``trickle_body`` sends a complete header and then one body byte
every ``every`` seconds, ``trickle_headers`` one header byte at a time
(never finishing the header), ``stall_body`` a header, one body byte after
``every`` seconds and then nothing, ``silent`` reads the request and never
says anything. None of them ever finishes an answer; each gives up after
``give_up`` seconds and closes, so a broken deadline fails a test instead of
hanging it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

BODY_HEADER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n"


class SlowServer:
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
