"""A Hermes whose list calls are slow: a relay in front of a real peer.

``SlowLists(upstream)`` listens on a free loopback port and relays every
request to ``upstream`` (the real peer) byte for byte, except that a list
call (``GET /api/sessions``) first waits ``list_delay`` seconds, which the
test may change while a sync runs, or ``list_delay(n)`` seconds for the
n-th list call (from 1) when it is a function. ``calls`` records when each list call
arrived and how long it took, so a test can read the pauses between them.

A session GET (``GET /api/sessions/{id}``, not its messages) waits ``get_delay``
the same way (a function gets the n-th GET, from 1), and ``gets`` records
them. ``plain_404_gets`` makes every session GET answer a plain ``404: Not
Found`` (no JSON body), as a Hermes without the session route does. Replies
go out with TCP_NODELAY, so a short delay is not lost in Nagle's 40 ms.
"""

from __future__ import annotations

import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import pairwise
from urllib.parse import urlsplit

import httpx


class SlowLists:
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
