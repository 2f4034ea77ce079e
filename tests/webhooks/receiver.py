"""A real HTTP receiver on loopback that answers from a script and records what came."""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
import time
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HANG = "hang"  # read the request, answer nothing until the receiver stops (or 30 s)


@dataclass
class Received:
    at: float  # time.monotonic()
    path: str
    headers: dict[str, str]
    raw: bytes

    @property
    def body(self) -> dict:
        return json.loads(self.raw)

    def signed_by(self, secret: str) -> bool:
        expected = "sha256=" + hmac.new(secret.encode(), self.raw, hashlib.sha256).hexdigest()
        return hmac.compare_digest(expected, self.headers.get("X-Hermes-UI-Signature-256", ""))


class HookReceiver:
    def __init__(self):
        self.script: list = []  # per request in turn: a status code or HANG; then 200
        self.received: list[Received] = []
        self.stopping = threading.Event()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                receiver.received.append(
                    Received(time.monotonic(), self.path, dict(self.headers.items()), raw)
                )
                step = receiver.script.pop(0) if receiver.script else 200
                if step == HANG:
                    receiver.stopping.wait(30)
                    return
                self.send_response(step)
                self.send_header("Content-Length", "2")
                self.end_headers()
                self.wfile.write(b"ok")

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hook"

    def start(self) -> HookReceiver:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self.server.shutdown()
        self.server.server_close()
