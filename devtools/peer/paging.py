"""The paging peer: 0.19.0 with the newer /messages rules in front.

Hermes after 0.19 (released from git, not on PyPI, not installable here) pages
``GET /api/sessions/{id}/messages`` (PR #81283; read from
``gateway/platforms/api_server.py`` of NousResearch/hermes-agent at
``de64b047ce81d326527862484a0397c73a861a64``). This is a small HTTP proxy in
front of a real 0.19.0 server that answers that route by the newer rules,
applied to the real server's whole answer; every other request passes through
unchanged (streams included). The rules (``page_messages``):

- no ``limit``: only the newest 500 rows (``latest = order == "latest" or
  (order is None and default_page)``);
- ``order=oldest|latest``, ``limit`` (capped at 500), ``offset``; anything
  else is a 400 ``invalid_pagination``;
- the body gains ``pagination: {limit, offset, order, returned}`` (no total);
- with ``hide_compaction`` the compaction summaries come back emptied with
  ``display_kind: "hidden"`` unless ``include_compacted=true``.

With ``session_flags`` it also answers by the newer session-flag rules (same
file and commit; 0.19.0 refuses these fields with 400 ``unsupported_session_field``):

- ``PATCH /api/sessions/{id}`` accepts ``pinned``, ``archived``, ``hidden``
  and ``unread``, booleans only (else 400 ``invalid_session_field``); the
  proxy keeps them in its own store keyed by profile prefix and session id
  (``pinned`` applied last, and pinning clears ``hidden``, as
  ``set_session_pinned`` does) and sends the rest (title, end reason) on;
- every session object it returns gains ``pinned``, ``archived``, ``hidden``;
- ``GET /api/sessions`` leaves out archived and hidden rows, pages over what
  remains, adds the pinned rows a page lacks past ``limit`` (a page can be
  longer than asked) and counts only non-pinned rows for ``has_more``.

Run ``python devtools/peer/paging.py --upstream URL`` (stdlib only), or use
``PagingPeer`` from Python. Its cost per page is 0.19.0's whole read: the
benchmarks compare against raw page calls through this same proxy.
"""

from __future__ import annotations

import argparse
import contextlib
import http.client
import json
import re
import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

MAX_PAGE = 500
# The text Hermes' compressor starts its summary with (devtools/peer/seed.py replays it).
COMPACTION_MARK = "[CONTEXT COMPACTION"
_MESSAGES = re.compile(r"^(?:/p/[^/]+)?/api/sessions/[^/]+/messages$")
_LIST = re.compile(r"^(?P<prefix>(?:/p/[^/]+)?)/api/sessions$")
_ONE = re.compile(r"^(?P<prefix>(?:/p/[^/]+)?)/api/sessions/(?P<id>[^/]+)(?P<fork>/fork)?$")
FLAGS = ("pinned", "archived", "hidden", "unread")
SHOWN_FLAGS = ("pinned", "archived", "hidden")  # what a session object carries
UPSTREAM_PAGE = 200  # 0.19.0's list cap
_HOP = {
    "connection",
    "keep-alive",
    "proxy-connection",
    "transfer-encoding",
    "te",
    "trailer",
    "upgrade",
    "content-length",
    "host",
}
SCRIPT = Path(__file__).resolve()


def _error(message: str) -> tuple[int, dict]:
    return 400, {
        "error": {
            "message": message,
            "type": "invalid_request_error",
            "param": None,
            "code": "invalid_pagination",
        }
    }


def _last(query: dict, name: str) -> str | None:
    values = query.get(name)
    return values[-1] if values else None


def _hidden(row: dict) -> dict:
    content = row.get("content")
    if isinstance(content, str) and content.startswith(COMPACTION_MARK):
        return dict(row, content="", display_kind="hidden")
    return row


def page_messages(
    payload: dict, query: dict[str, list[str]], *, hide_compaction: bool = False
) -> tuple[int, dict]:
    """(status, body): the newer handler's answer, from 0.19.0's whole ``payload``."""
    order = _last(query, "order")
    if order not in (None, "oldest", "latest"):
        return _error("order must be 'oldest' or 'latest'")
    raw_limit, raw_offset = _last(query, "limit"), _last(query, "offset")
    default_page = raw_limit is None
    try:
        limit = MAX_PAGE if default_page else min(int(raw_limit), MAX_PAGE)
        offset = 0 if raw_offset is None else int(raw_offset)
    except ValueError:
        return _error("limit and offset must be integers")
    if limit < 1 or offset < 0:
        return _error("limit must be positive and offset not negative")
    latest = order == "latest" or (order is None and default_page)
    rows = payload.get("data") or []
    if hide_compaction and _last(query, "include_compacted") not in ("1", "true"):
        rows = [_hidden(row) if isinstance(row, dict) else row for row in rows]
    if latest:
        end = max(0, len(rows) - offset)
        page = rows[max(0, end - limit) : end]
    else:
        page = rows[offset : offset + limit]
    pagination = {
        "limit": limit,
        "offset": offset,
        "order": "latest" if latest else "oldest",
        "returned": len(page),
    }
    return 200, dict(payload, data=page, pagination=pagination)


def _flag_error(name: str) -> tuple[int, dict]:
    return 400, {
        "error": {
            "message": f"Session field {name} must be a boolean",
            "type": "invalid_request_error",
            "param": name,
            "code": "invalid_session_field",
        }
    }


class FlagStore:
    """The session flags a newer Hermes keeps in its database, kept here per session."""

    def __init__(self):
        self._flags: dict[tuple[str, str], dict] = {}
        self._lock = threading.Lock()

    def get(self, key: tuple[str, str]) -> dict:
        with self._lock:
            found = self._flags.get(key, {})
            return {name: bool(found.get(name, False)) for name in FLAGS}

    def set(self, key: tuple[str, str], changes: dict) -> None:
        with self._lock:
            flags = self._flags.setdefault(key, {})
            for name in ("archived", "hidden", "unread", "pinned"):  # pinned last
                if name in changes:
                    flags[name] = changes[name]
                    if name == "pinned" and changes[name]:
                        flags["hidden"] = False

    def forget(self, key: tuple[str, str]) -> None:
        with self._lock:
            self._flags.pop(key, None)


def split_flags(body: dict) -> tuple[dict, dict, tuple[int, dict] | None]:
    """(the flags asked for, the rest of the PATCH body, an error answer or None)."""
    flags = {name: body[name] for name in FLAGS if name in body}
    for name, value in flags.items():
        if not isinstance(value, bool):
            return {}, body, _flag_error(name)
    return flags, {k: v for k, v in body.items() if k not in FLAGS}, None


def list_page(rows: list[dict], query: dict[str, list[str]]) -> dict:
    """The newer list answer from every row 0.19.0 lists (each carrying its flags)."""
    try:
        limit = max(1, min(int(_last(query, "limit") or 50), UPSTREAM_PAGE))
    except ValueError:
        limit = 50
    try:
        offset = max(0, int(_last(query, "offset") or 0))
    except ValueError:
        offset = 0
    shown = [row for row in rows if not row.get("archived") and not row.get("hidden")]
    page = shown[offset : offset + limit]
    has_more = sum(1 for row in page if not row.get("pinned")) == limit
    present = {row.get("id") for row in page}
    page += [row for row in shown if row.get("pinned") and row.get("id") not in present]
    return {"object": "list", "data": page, "limit": limit, "offset": offset, "has_more": has_more}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    upstream: tuple[str, int] = ("127.0.0.1", 0)
    hide_compaction = False
    flags: FlagStore | None = None  # set: the newer session-flag rules apply

    def log_message(self, format, *args):
        pass  # a transcript's ids in a log line are not wanted

    def do_GET(self):
        self._forward()

    do_POST = do_PATCH = do_DELETE = do_PUT = do_HEAD = do_GET

    def _forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else None
        headers = {k: v for k, v in self.headers.items() if k.lower() not in _HOP}
        if body is not None:
            headers["Content-Length"] = str(len(body))
        if self.flags is not None and self._flagged(body, headers):
            return
        conn = http.client.HTTPConnection(*self.upstream, timeout=900)
        try:
            conn.request(self.command, self.path, body=body, headers=headers)
            response = conn.getresponse()
            url = urlsplit(self.path)
            if self.command == "GET" and _MESSAGES.match(url.path) and response.status == 200:
                self._paged(response, parse_qs(url.query, keep_blank_values=True))
            else:
                self._relay(response)
        except OSError:
            self.close_connection = True
        finally:
            conn.close()

    # -- the newer session-flag rules ------------------------------------------------

    def _call(self, method: str, path: str, body: bytes | None, headers: dict):
        """(status, headers, raw body) of one upstream call."""
        headers = dict(headers)
        if body is not None:
            headers["Content-Length"] = str(len(body))
        conn = http.client.HTTPConnection(*self.upstream, timeout=60)
        try:
            conn.request(method, path, body=body, headers=headers)
            response = conn.getresponse()
            return response.status, response.getheaders(), response.read()
        finally:
            conn.close()

    def _flagged(self, body: bytes | None, headers: dict) -> bool:
        """Answer a session or list request by the newer rules; False: not one of them."""
        url = urlsplit(self.path)
        listing, one = _LIST.match(url.path), _ONE.match(url.path)
        if listing and self.command == "GET":
            self._list(listing.group("prefix"), parse_qs(url.query), headers)
            return True
        if listing and self.command == "POST":  # create: the new session object gains flags
            one, key = listing, None
        else:
            handled = ("GET", "PATCH", "DELETE") + (("POST",) if one and one.group("fork") else ())
            if not one or self.command not in handled:
                return False
            key = (one.group("prefix"), unquote(one.group("id")))
        if self.command == "PATCH":
            try:
                asked = json.loads(body or b"{}")
            except ValueError:
                return False
            if not isinstance(asked, dict):
                return False
            changes, rest, error = split_flags(asked)
            if error:
                self._answer(*error)
                return True
            body = json.dumps(rest).encode()
        status, answer_headers, raw = self._call(self.command, self.path, body, headers)
        if status >= 300:
            self._answer(status, raw, answer_headers)
            return True
        payload = json.loads(raw)
        if self.command == "DELETE":
            self.flags.forget(key)
        elif self.command == "PATCH":
            self.flags.set(key, changes)
        session = payload.get("session") if isinstance(payload, dict) else None
        if isinstance(session, dict):
            self._decorate(one.group("prefix"), session)
        self._answer(status, payload)
        return True

    def _decorate(self, prefix: str, row: dict) -> dict:
        flags = self.flags.get((prefix, str(row.get("id"))))
        row.update({name: flags[name] for name in SHOWN_FLAGS})
        return row

    def _list(self, prefix: str, query: dict, headers: dict) -> None:
        params = {k: v[-1] for k, v in query.items() if k not in ("limit", "offset")}
        rows: list[dict] = []
        while True:
            page_query = urlencode({**params, "limit": UPSTREAM_PAGE, "offset": len(rows)})
            status, answer_headers, raw = self._call(
                "GET", f"{prefix}/api/sessions?{page_query}", None, headers
            )
            if status != 200:
                self._answer(status, raw, answer_headers)
                return
            data = json.loads(raw).get("data") or []
            rows += [self._decorate(prefix, row) for row in data]
            if len(data) < UPSTREAM_PAGE:
                break
        self._answer(200, list_page(rows, query))

    def _answer(self, status: int, body, headers=None) -> None:
        if isinstance(body, (bytes, bytearray)):
            data = bytes(body)
            kind = dict((k.lower(), v) for k, v in headers or []).get(
                "content-type", "application/json; charset=utf-8"
            )
        else:
            data = json.dumps(body, ensure_ascii=False).encode()
            kind = "application/json; charset=utf-8"
        self.send_response_only(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _paged(self, response, query):
        payload = json.loads(response.read())
        status, answer = page_messages(payload, query, hide_compaction=self.hide_compaction)
        data = json.dumps(answer, ensure_ascii=False).encode()
        self.send_response_only(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _relay(self, response):
        self.send_response_only(response.status, response.reason)
        for name, value in response.getheaders():
            if name.lower() not in _HOP:
                self.send_header(name, value)
        length = response.getheader("Content-Length")
        if self.command == "HEAD" or response.status in (204, 304):
            self.end_headers()
            return
        if length is not None:
            self.send_header("Content-Length", length)
            self.end_headers()
            self.wfile.write(response.read())
            return
        # A stream (SSE): pass each piece on as it arrives.
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        while piece := response.read1(65536):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.wfile.flush()
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def serve(
    upstream: str, host: str, port: int, hide_compaction: bool, session_flags: bool = False
) -> ThreadingHTTPServer:
    """A paging server bound to ``host:port`` (0: any) in front of ``upstream``."""
    parts = urlsplit(upstream)
    handler = type(
        "PagingHandler",
        (_Handler,),
        {
            "upstream": (parts.hostname, parts.port or 80),
            "hide_compaction": hide_compaction,
            "flags": FlagStore() if session_flags else None,
        },
    )
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    return server


class PagingPeer:
    """The paging proxy in its own process, in front of a running peer (``upstream``)."""

    def __init__(
        self,
        upstream,
        *,
        hide_compaction: bool = False,
        session_flags: bool = False,
        log_dir: Path | None = None,
        stop_upstream: bool = False,
    ):
        self.upstream = upstream
        self.hide_compaction = hide_compaction
        self.session_flags = session_flags  # the newer PATCH flags and list rules
        self.stop_upstream = stop_upstream  # ``stop()`` stops the peer behind it too
        self.log_dir = Path(log_dir or upstream.log_dir)
        self.port = 0
        self._process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def key(self) -> str:
        return self.upstream.key

    def pids(self) -> list[int]:
        return [self._process.pid] if self._process else []

    def start(self) -> PagingPeer:
        port_file = self.log_dir / "paging.port"
        port_file.unlink(missing_ok=True)
        argv = [sys.executable, str(SCRIPT), "--upstream", self.upstream.base_url]
        argv += ["--port-file", str(port_file)]
        if self.hide_compaction:
            argv.append("--hide-compaction")
        if self.session_flags:
            argv.append("--session-flags")
        self._process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + 10
        while not port_file.exists() or not port_file.read_text().strip():
            if self._process.poll() is not None or time.monotonic() > deadline:
                self.stop()
                raise RuntimeError("the paging peer did not start")
            time.sleep(0.02)
        self.port = int(port_file.read_text())
        return self

    def stop(self) -> None:
        if self.stop_upstream:
            self.upstream.stop()
        if self._process is None:
            return
        self._process.terminate()
        try:
            self._process.wait(5)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait(5)
        self._process = None

    def __enter__(self) -> PagingPeer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description="0.19.0 with the newer /messages rules in front")
    ap.add_argument("--upstream", required=True, help="the 0.19.0 server's base URL")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--port-file", type=Path)
    ap.add_argument("--hide-compaction", action="store_true")
    ap.add_argument("--session-flags", action="store_true", help="the newer PATCH flag rules")
    args = ap.parse_args(argv)
    server = serve(args.upstream, args.host, args.port, args.hide_compaction, args.session_flags)
    port = server.server_address[1]
    if args.port_file:
        tmp = args.port_file.with_suffix(".tmp")
        tmp.write_text(str(port))
        tmp.replace(args.port_file)
    else:
        print(json.dumps({"base_url": f"http://{args.host}:{port}", "upstream": args.upstream}))
        sys.stdout.flush()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with contextlib.suppress(KeyboardInterrupt):
        server.serve_forever()
    server.server_close()


if __name__ == "__main__":
    main()
