"""Benchmark of what metrics and tracing cost: the session page and the index page, on and off.

``python manage.py bench --only observability`` seeds its own peer (the bench seed,
10,000 sessions of 10 messages), indexes them once (rows only), and serves one data
folder with four uvicorn processes side by side: two plain, and two with ``/metrics``
(``HERMES_UI_METRICS_TOKEN``, multiprocess mode) and traces exported over OTLP/HTTP to
a receiver in this process, one tracing every page and one a page in ten. Each round
asks each server in turn (the order rotated every round) for ``BLOCK`` never-viewed
session pages and ``BLOCK`` index pages over HTTP. The cost is the difference in the
server process's own CPU time per page against the two plain ones (target: at most
3 %); how far the two plain servers are apart is printed as the noise of the run.
The medians of the time to answer are printed beside them. Last, tracing's own work
in this process, which the machine's load moves far less.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import httpx

from devtools.bench.live import _login, _wait_up, migrate_with_user

REPO = Path(__file__).resolve().parents[2]
ROUNDS = 41
BLOCK = 5
WARM_UP = 3
TOKEN = "bench-observability-token"
TARGET = 3.0  # percent
# The SDK's own settings for tracing one page in ten (and the Hermes calls of those).
SAMPLED = {"OTEL_TRACES_SAMPLER": "parentbased_traceidratio", "OTEL_TRACES_SAMPLER_ARG": "0.1"}


class _Sink(BaseHTTPRequestHandler):
    """An OTLP/HTTP receiver that takes every export and keeps nothing."""

    spans_bytes = 0

    def do_POST(self):
        _Sink.spans_bytes += len(self.rfile.read(int(self.headers["Content-Length"])))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args):
        pass


def run(stdout) -> None:
    from devtools.bench.child import seeded_peer

    with contextlib.ExitStack() as stack:
        scratch, peer = stack.enter_context(seeded_peer(stdout, "observability"))
        sink = ThreadingHTTPServer(("127.0.0.1", 0), _Sink)
        threading.Thread(target=sink.serve_forever, daemon=True).start()
        stack.callback(sink.shutdown)
        env = _prepared(Path(scratch), peer)
        on = {
            "HERMES_UI_METRICS_TOKEN": TOKEN,
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{sink.server_address[1]}",
        }
        servers = {
            "plain": stack.enter_context(_served(env)),
            "plain again": stack.enter_context(_served(env)),
            "on": stack.enter_context(_served({**env, **on})),
            "sampled": stack.enter_context(_served({**env, **on, **SAMPLED})),
        }
        _measure(stdout, servers)
        stdout.write(f"  OTLP received: {_Sink.spans_bytes / 1024:.0f} KB of spans")
    _spans_alone(stdout)


class _Nowhere:
    """A span exporter that sends nothing."""

    def export(self, spans):
        from opentelemetry.sdk.trace.export import SpanExportResult

        return SpanExportResult.SUCCESS

    def shutdown(self):
        pass

    def force_flush(self, timeout_millis=None):
        return True


def _spans_alone(stdout, requests: int = 4000) -> None:
    """Tracing alone in the request's thread, steadier than the servers' difference: the
    page span around a view making one Hermes call span, against the same view bare
    (best of three; the spans are queued for an exporter that sends nothing)."""
    from django.http import HttpResponse
    from django.test import RequestFactory
    from django.urls import resolve
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    from opentelemetry.sdk.trace.sampling import ALWAYS_ON, ParentBased, TraceIdRatioBased

    from hermes_ui.platform import tracing
    from hermes_ui.web.links import session_url

    path = session_url("bench", "bench_00001")
    match = resolve(path)
    pages = [RequestFactory().get(path) for _ in range(requests)]

    def view(request):
        request.resolver_match = match
        call = httpx.Request("GET", "http://127.0.0.1:9/api/sessions/bench_00001/messages")
        with tracing.hermes_call("bench", "session_messages", call) as span:
            span.set_attribute("http.response.status_code", 200)
        return HttpResponse(b"")

    def per_page(handler) -> float:
        best = float("inf")
        for _ in range(3):
            started = time.thread_time()
            for request in pages:
                handler(request)
            best = min(best, (time.thread_time() - started) / requests * 1e6)
        return best

    saved = tracing._tracer
    try:
        tracing._tracer = None
        bare = per_page(view)
        for sampler, how in ((ALWAYS_ON, "every page"), (TraceIdRatioBased(0.1), "one in ten")):
            provider = TracerProvider(sampler=ParentBased(sampler))
            provider.add_span_processor(BatchSpanProcessor(_Nowhere()))
            tracing._tracer = provider.get_tracer("bench")
            cost = per_page(tracing.page_span(view)) - bare
            provider.shutdown()
            stdout.write(f"  tracing alone, {how} traced: {cost:.0f} µs per page (one Hermes call)")
    finally:
        tracing._tracer = saved


def _prepared(scratch: Path, peer) -> dict:
    from devtools.bench.child import dashboard_env

    env = dashboard_env(
        scratch / "ui",
        peer,
        HERMES_INDEX_REFRESH_SECONDS="0",
        # The index page needs the sessions' rows, not their transcripts' text.
        HERMES_INDEX_CONTENT="false",
        HERMES_UI_LOG_LEVEL="WARNING",
    )
    # Tracing and the metrics folder only where the measure turns them on.
    env = {k: v for k, v in env.items() if not k.startswith(("OTEL_", "PROMETHEUS_"))}
    migrate_with_user(env)
    # Unpaced: this one sync only arranges the index both servers then read.
    subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "index_sync", "--full"],
        env={**env, "HERMES_INDEX_PACE_TARGET_MS": "60000"},
        check=True,
        cwd=REPO,
        capture_output=True,
        timeout=900,
    )
    return env


@contextlib.contextmanager
def _served(env: dict):
    """One uvicorn worker on ``env``: (a signed-in client, the process id)."""
    from devtools.peer.launcher import free_port
    from hermes_ui.platform.serving import uvicorn_argv

    port = free_port()
    web = subprocess.Popen(
        uvicorn_argv("127.0.0.1", port),
        # The same dict layouts in every server: one source of their difference less.
        env={**env, "PYTHONHASHSEED": "0"},
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}"
        _wait_up(base)
        with httpx.Client(base_url=base, cookies=_login(base), timeout=60) as http:
            yield http, web.pid
    finally:
        web.terminate()
        web.wait(timeout=30)


def _cpu_seconds(pid: int) -> dict[str, int]:
    """Each thread's time on a CPU so far, in nanoseconds (``/proc/<pid>/task/*/schedstat``).

    ``/proc/<pid>/stat`` counts in clock ticks (10 ms), as much as a block of five
    pages' difference between the servers; this reads nanoseconds.
    """
    found = {}
    for task in Path(f"/proc/{pid}/task").iterdir():
        with contextlib.suppress(FileNotFoundError, ProcessLookupError):
            found[task.name] = int((task / "schedstat").read_text().split()[0])
    return found


def _cpu_used(before: dict[str, int], pid: int) -> float:
    """Seconds of CPU the process's threads used since ``before`` (a new thread: all of it)."""
    now = _cpu_seconds(pid)
    return sum(spent - before.get(task, 0) for task, spent in now.items()) / 1e9


def _measure(stdout, servers: dict) -> None:
    from hermes_ui.web.links import session_url

    stdout.write(
        f"load average at the start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores); "
        f"{ROUNDS} rounds of {BLOCK} pages of each kind per server, the servers in turn "
        "(the order rotated every round), one uvicorn worker each; CPU: the server "
        "process's own CPU time per page (all its threads, the span exporter's included)"
    )
    wall: dict[tuple[str, str], list[float]] = {}
    cpu: dict[tuple[str, str], float] = {}
    fresh = iter(range(1000, 10_000))  # session pages never viewed before by any server
    order = list(servers)
    for n in range(WARM_UP + ROUNDS):
        ids = [f"bench_{next(fresh):05d}" for _ in range(BLOCK)]
        for mode in order[n % len(order) :] + order[: n % len(order)]:
            http, pid = servers[mode]
            for page, urls in (
                ("session", [session_url("bench", sid) for sid in ids]),
                ("index", [_INDEX] * BLOCK),
            ):
                used = _cpu_seconds(pid)
                for url in urls:
                    started = time.perf_counter()
                    answer = http.get(url)
                    took = (time.perf_counter() - started) * 1000
                    assert answer.status_code == 200, (mode, page, answer.status_code)
                    if n >= WARM_UP:
                        wall.setdefault((page, mode), []).append(took)
                if n >= WARM_UP:
                    cpu[(page, mode)] = cpu.get((page, mode), 0.0) + _cpu_used(used, pid)
    pages = ROUNDS * BLOCK
    for page, what in (("session", "session page, 10 messages"), ("index", "index page")):
        per = {mode: cpu[(page, mode)] / pages * 1000 for mode in servers}
        plain = (per["plain"] + per["plain again"]) / 2
        noise = abs(per["plain again"] - per["plain"]) / plain * 100
        walls = {mode: statistics.median(wall[(page, mode)]) for mode in servers}
        stdout.write(
            f"{what}: CPU {per['plain']:.2f} and {per['plain again']:.2f} ms plain (apart by "
            f"{noise:.1f} %: the noise); time to answer (median) {walls['plain']:.1f} and "
            f"{walls['plain again']:.1f} ms"
        )
        for mode, how in (("on", "every page traced"), ("sampled", "one page in ten traced")):
            cost = (per[mode] - plain) / plain * 100
            met = "met" if cost <= TARGET else "NOT met"
            stdout.write(
                f"  with metrics and tracing, {how}: CPU {per[mode]:.2f} ms, {cost:+.1f} % "
                f"(target <= {TARGET:.0f} %: {met}); time to answer {walls[mode]:.1f} ms"
            )
    started = time.perf_counter()
    watched = servers["on"][0]
    scrape = watched.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    took = (time.perf_counter() - started) * 1000
    stdout.write(f"  a scrape of /metrics: {took:.1f} ms, {len(scrape.content) / 1024:.0f} KB")


_INDEX = "/e/bench/sessions/"
