"""Deterministic offline OpenAI-compatible model for the Hermes demo/test peer.

Stdlib only, so it runs under either virtualenv:
``python devtools/peer/model_server.py --port N [--delta-delay-ms 20]``.

Routes: ``GET /v1/models`` and ``POST /v1/chat/completions`` (``stream``
true or false).  Everything else is a fast 404: Hermes probes a few
provider-specific paths per turn and only needs a quick answer.

Behaviour is keyed by markers in the LAST user message (string content or a
list of parts; markers are stripped from echoed text).  Hermes merges the
user rows of failed or cancelled turns into the next user message, joined by
a blank line; only the text after the last paragraph holding a marker
counts, so put markers in the last paragraph.

``(none)``        ``Echo: <text>`` streamed word by word.
``[[tool:todo]]`` first call answers with a ``todo`` tool call (same
                  arguments as the captured sample); once the request carries
                  the tool result, ``Tool todo returned: <first 80 chars>``.
                  ``[[tool:NAME]]`` calls another tool with ``{}``.
``[[args]]``      with ``[[tool:todo]]``: the todo's content is the message's
                  text (markers stripped), so user text reaches tool arguments.
``[[reason]]``    ``reasoning_content`` deltas, then the echo answer.
``[[slow:N]]``    N deltas 200 ms apart (cancel / streaming tests).
``[[words:N]]``   N deltas without delay (many-event / truncation tests).
``[[ctx:N]]``     report ``usage.prompt_tokens = N`` instead of chars/4; drives
                  the real compressor (see ``launcher.rotation_recipe``).
``[[fail]]``      HTTP 400 error body; ``[[fail:CODE]]`` picks the status.

What Hermes 0.19.0 does with model failures (measured on the stream route):
* 400 and 403: no retry.  ``run.started, message.started,
  assistant.completed, run.completed, done`` about 0.15 s after the request;
  ``assistant.completed.content`` is ``HTTP 400: <error.message>``,
  ``run.completed.messages`` is ``[]`` and only the user row is stored.
  Non-stream /chat answers 200 with that text.  Fastest, hence ``[[fail]]``.
* 401: same shape after a credential refresh attempt (~1 s).
* 404, 429, 500, 503: retried with backoff, then (7-9 s) the same shape with
  ``API call failed after 3 retries: HTTP <code>: <error.message>``.
* No model response produces the ``error`` SSE event: it comes only from an
  exception outside the model call, e.g. ``model.context_length`` below
  64,000 (agent construction fails: ``run.started, message.started, error,
  done``; /chat gives 500 text/plain).
* Hermes writes ``HERMES_HOME/sessions/request_dump_*.json`` (full request
  bodies) for failed calls.

Hermes' own auxiliary calls are recognised by their prompts and answered
without markers: the context compressor (``You are a summarization agent``)
gets a short fixed summary, the title generator a short title, and the image
pre-pass (``Describe everything visible in this image``) the text ``a small
stub test image``, which Hermes splices into the user turn before the echo.

Logging: one line per request, method and path only (never bodies or query
strings), because transcripts may hold user data.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import re
import signal
import socket
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

MODEL_NAME = "stub-model"
CONTEXT_LENGTH = 131072
SLOW_DELAY_S = 0.2
TOOL_RESULT_PREVIEW = 80
SUMMARY_MARKER = "You are a summarization agent creating a context checkpoint"
TITLE_MARKER = "Generate a short, descriptive title"
VISION_MARKER = "Describe everything visible in this image"
TODO_ARGS = {"todos": [{"id": "1", "content": "stub task", "status": "pending"}]}
_MARKER_RE = re.compile(r"\[\[(tool|reason|slow|words|fail|ctx|args)(?::([^\]]*))?\]\]")
_ids = itertools.count(1)


def text_of(content) -> str:
    """Flatten string or list-of-parts content to its text."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and isinstance(part.get("text"), str):
                parts.append(part["text"])
            elif isinstance(part, str):
                parts.append(part)
        return " ".join(parts)
    return ""


def current_turn(text: str) -> str:
    """The newest turn's text inside a possibly merged user message.

    Hermes joins consecutive user rows (left behind by failed or cancelled
    turns) with a blank line, so "boom [[fail]]\n\nhello" must act on
    "hello" only; otherwise one failure would poison every later turn.
    """
    parts = text.split("\n\n")
    start = 0
    for i, part in enumerate(parts[:-1]):
        if _MARKER_RE.search(part):
            start = i + 1
    return "\n\n".join(parts[start:])


def markers(text: str) -> dict:
    return {name: arg for name, arg in _MARKER_RE.findall(text)}  # last one wins


def strip_markers(text: str) -> str:
    return " ".join(_MARKER_RE.sub(" ", text).split())


def split_words(text: str) -> list:
    """Word-by-word deltas that concatenate back to ``text`` exactly."""
    return re.findall(r"\S+\s*|\s+", text) or [text]


def _int(arg, default: int, cap: int = 100000) -> int:
    try:
        return max(0, min(int(arg), cap))
    except (TypeError, ValueError):
        return default


def plan(body: dict, delta_delay: float) -> dict:
    """Decide the whole response from the request, deterministically.

    Returns a dict with ``deltas`` (answer pieces), ``reasoning`` pieces,
    ``tool_call`` (or None), ``delay`` between deltas, ``status`` (HTTP
    error status or None) and ``prompt_tokens``.
    """
    messages = body.get("messages") or []
    prompt_chars = sum(len(text_of(m.get("content"))) for m in messages if isinstance(m, dict))
    result = {
        "deltas": [],
        "reasoning": [],
        "tool_call": None,
        "delay": delta_delay,
        "status": None,
        "prompt_tokens": max(1, prompt_chars // 4),
    }
    all_text = [text_of(m.get("content")) for m in messages if isinstance(m, dict)]

    if any(SUMMARY_MARKER in t for t in all_text):
        # Compressor call: fixed structure so compaction output is predictable.
        turns = sum(t.count("[USER]:") for t in all_text)
        result["deltas"] = split_words(
            "## Goal\nStub summary of the compacted turns.\n\n"
            f"## Completed Actions\n1. SUMMARIZE {turns} user turn(s) - done [tool: none]\n\n"
            "## Active State\nDeterministic stub model; nothing running."
        )
        result["delay"] = 0.0
        return result
    if any(t.startswith(TITLE_MARKER) for t in all_text):
        user = text_of(messages[-1].get("content")) if messages else ""
        words = strip_markers(user.replace("User:", " ").split("Assistant:")[0]).split()[:5]
        result["deltas"] = split_words(" ".join(words) or "Stub conversation")
        result["delay"] = 0.0
        return result

    if messages and VISION_MARKER in text_of(messages[-1].get("content")):
        # Hermes' image pre-pass: its answer is spliced into the user turn.
        result["deltas"] = split_words("a small stub test image")
        result["delay"] = 0.0
        return result

    last_user = None
    tool_results = []
    call_names = {}
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") == "user":
            last_user = m
            tool_results = []
        elif m.get("role") == "tool":
            tool_results.append(m)
        for tc in m.get("tool_calls") or []:
            if isinstance(tc, dict):
                call_names[tc.get("id")] = (tc.get("function") or {}).get("name")
    text = current_turn(text_of(last_user.get("content"))) if last_user else ""
    found = markers(text)
    if "ctx" in found:
        result["prompt_tokens"] = _int(found["ctx"], result["prompt_tokens"], 10_000_000)

    if "fail" in found:
        result["status"] = _int(found["fail"], 400, 599) if found["fail"] else 400
        if result["status"] < 400:
            result["status"] = 400
        return result
    if tool_results:
        last = tool_results[-1]
        name = (
            last.get("name")
            or last.get("tool_name")
            or call_names.get(last.get("tool_call_id"))
            or "tool"
        )
        preview = text_of(last.get("content"))[:TOOL_RESULT_PREVIEW]
        result["deltas"] = split_words(f"Tool {name} returned: {preview}")
        return result
    if "tool" in found:
        name = found["tool"] or "todo"
        # Counting earlier tool calls keeps ids unique within one transcript
        # while staying reproducible across runs.
        n = 1 + sum(
            len(m.get("tool_calls") or [])
            for m in messages
            if isinstance(m, dict) and m.get("role") == "assistant"
        )
        args = TODO_ARGS if name == "todo" else {}
        if name == "todo" and "args" in found:
            args = {"todos": [{**TODO_ARGS["todos"][0], "content": strip_markers(text)}]}
        result["tool_call"] = {
            "id": f"call_stub_{n:06d}",
            "name": name,
            "arguments": json.dumps(args),
        }
        return result

    clean = strip_markers(text)
    if "reason" in found:
        result["reasoning"] = split_words(f"Thinking about: {clean or 'nothing'}")
    if "slow" in found:
        count = _int(found["slow"], 10, 10000)
        result["deltas"] = [f"slow{i} " for i in range(1, count + 1)]
        result["delay"] = SLOW_DELAY_S
    elif "words" in found:
        count = _int(found["words"], 100, 100000)
        result["deltas"] = [f"w{i} " for i in range(1, count + 1)]
        result["delay"] = 0.0
    else:
        result["deltas"] = split_words(f"Echo: {clean}" if clean else "Echo:")
    return result


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "HermesStubModel/1"
    delta_delay = 0.02

    def setup(self):
        # Without TCP_NODELAY each small write/probe stalls ~40 ms on
        # Nagle + delayed ACK, which dominates turn latency.
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        super().setup()

    def log_request(self, code="-", size="-"):
        path = self.path.split("?", 1)[0]
        sys.stderr.write(f"{self.command} {path} {code}\n")
        sys.stderr.flush()

    def log_message(self, format, *args):
        pass  # default logs the full request line; log_request covers it

    # -- helpers -------------------------------------------------------
    def _send_json(self, status: int, payload: dict) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            chunks = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    # -- routes ----------------------------------------------------------
    def do_GET(self):
        if self.path.split("?", 1)[0].rstrip("/") == "/v1/models":
            self._send_json(
                200,
                {
                    "object": "list",
                    "data": [
                        {
                            "id": MODEL_NAME,
                            "object": "model",
                            "created": 0,
                            "owned_by": "hermes-ui-stub",
                            "context_length": CONTEXT_LENGTH,
                        }
                    ],
                },
            )
        else:
            self._not_found()

    def do_POST(self):
        raw = self._read_body()
        if self.path.split("?", 1)[0].rstrip("/") != "/v1/chat/completions":
            self._not_found()
            return
        try:
            body = json.loads(raw or b"{}")
            if not isinstance(body, dict):
                raise ValueError
        except ValueError:
            self._send_json(
                400, {"error": {"message": "invalid JSON body", "type": "invalid_request_error"}}
            )
            return
        p = plan(body, self.delta_delay)
        if p["status"]:
            self._send_json(
                p["status"],
                {
                    "error": {
                        "message": "stub model failure requested by [[fail]] marker",
                        "type": "invalid_request_error" if p["status"] < 500 else "server_error",
                        "code": "stub_failure",
                    }
                },
            )
            return
        model = body.get("model") or MODEL_NAME
        if body.get("stream"):
            self._stream(
                p, model, bool((body.get("stream_options") or {}).get("include_usage", True))
            )
        else:
            self._complete(p, model)

    def do_PUT(self):
        self._read_body()
        self._not_found()

    do_DELETE = do_PATCH = do_PUT

    def _not_found(self):
        self._send_json(404, {"error": {"message": "not found", "type": "not_found"}})

    # -- responses -------------------------------------------------------
    @staticmethod
    def _usage(p: dict) -> dict:
        completion = max(1, len(p["deltas"]) + len(p["reasoning"]))
        return {
            "prompt_tokens": p["prompt_tokens"],
            "completion_tokens": completion,
            "total_tokens": p["prompt_tokens"] + completion,
        }

    def _complete(self, p: dict, model: str) -> None:
        message = {"role": "assistant", "content": "".join(p["deltas"])}
        finish = "stop"
        if p["reasoning"]:
            message["reasoning_content"] = "".join(p["reasoning"])
        if p["tool_call"]:
            tc = p["tool_call"]
            message["content"] = None
            message["tool_calls"] = [
                {
                    "id": tc["id"],
                    "type": "function",
                    "function": {"name": tc["name"], "arguments": tc["arguments"]},
                }
            ]
            finish = "tool_calls"
        self._send_json(
            200,
            {
                "id": f"chatcmpl-stub-{next(_ids)}",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": self._usage(p),
            },
        )

    def _stream(self, p: dict, model: str, include_usage: bool) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        base = {
            "id": f"chatcmpl-stub-{next(_ids)}",
            "object": "chat.completion.chunk",
            "created": int(time.time()),
            "model": model,
        }

        def send(delta=None, finish=None, usage=None):
            chunk = dict(
                base,
                choices=[]
                if usage
                else [{"index": 0, "delta": delta or {}, "finish_reason": finish}],
            )
            if usage:
                chunk["usage"] = usage
            self._chunk(b"data: " + json.dumps(chunk).encode() + b"\n\n")

        try:
            send({"role": "assistant", "content": ""})
            for piece in p["reasoning"]:
                send({"reasoning_content": piece})
                if p["delay"]:
                    time.sleep(p["delay"])
            finish = "stop"
            if p["tool_call"]:
                tc = p["tool_call"]
                send(
                    {
                        "tool_calls": [
                            {
                                "index": 0,
                                "id": tc["id"],
                                "type": "function",
                                "function": {"name": tc["name"], "arguments": ""},
                            }
                        ]
                    }
                )
                send({"tool_calls": [{"index": 0, "function": {"arguments": tc["arguments"]}}]})
                finish = "tool_calls"
            for i, piece in enumerate(p["deltas"]):
                if i and p["delay"]:
                    time.sleep(p["delay"])
                send({"content": piece})
            send({}, finish)
            if include_usage:
                send(usage=self._usage(p))
            self._chunk(b"data: [DONE]\n\n")
            self._chunk(b"")
        except (BrokenPipeError, ConnectionResetError):
            # The agent hung up (interrupt / cancel): nothing left to do.
            self.close_connection = True


def serve(host: str, port: int, delta_delay_ms: float, port_file: str | None = None) -> None:
    Handler.delta_delay = max(0.0, delta_delay_ms / 1000.0)
    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    bound = server.server_address[1]
    if port_file:
        # Written after bind so a launcher using --port 0 has no port race.
        with open(port_file + ".tmp", "w") as fh:
            fh.write(str(bound))
        os.replace(port_file + ".tmp", port_file)
    sys.stderr.write(f"stub model listening on {host}:{bound}\n")
    sys.stderr.flush()
    try:
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _on_sigterm(*_):
    # SIGTERM from the launcher should exit cleanly, not dump a traceback.
    raise KeyboardInterrupt


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--delta-delay-ms", type=float, default=20.0)
    ap.add_argument("--port-file", default=None, help="write the bound port here")
    args = ap.parse_args(argv)
    signal.signal(signal.SIGTERM, _on_sigterm)
    serve(args.host, args.port, args.delta_delay_ms, args.port_file)


if __name__ == "__main__":
    main()
