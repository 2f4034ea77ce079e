"""The ASGI entry point: sync views in one hop and a bounded number at once."""

import asyncio
import threading
import time

from django.http import HttpResponse
from django.urls import reverse

from hermes_ui.asgi import ASYNC, PAGE, HermesASGIHandler, route_kind, route_path
from hermes_ui.web.links import session_url


def _scope(path: str) -> dict:
    return {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": b"",
        "root_path": "", "headers": [(b"host", b"testserver")],
        "server": ("testserver", 80), "client": ("127.0.0.1", 50000),
    }  # fmt: skip


async def _get(app, path: str) -> tuple[int, dict, bytes]:
    sent = []
    asked = False

    async def receive():
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # the client stays connected

    async def send(message):
        sent.append(message)

    await app(_scope(path), receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body


def test_only_the_chat_event_stream_takes_the_async_path():
    stream = reverse("chat_turn_stream", kwargs={"endpoint": "local", "turn_id": 7})
    assert route_kind(stream) == ASYNC
    assert route_kind(session_url("local", "abc")) != ASYNC
    assert route_kind(reverse("index_list", kwargs={"endpoint": "local"})) != ASYNC
    assert route_kind("/no/such/page/") != ASYNC


def test_streams_and_exports_keep_off_the_page_lanes():
    stream = reverse("chat_turn_stream", kwargs={"endpoint": "local", "turn_id": 7})
    export = session_url("local", "abc", "session_export")
    assert route_kind(stream) != PAGE  # a stream open for minutes never holds a lane
    assert route_kind(export) != PAGE
    assert route_kind(session_url("local", "abc")) == PAGE
    assert route_kind("/no/such/page/") == PAGE


def test_a_sync_page_runs_the_whole_middleware_chain():
    app = HermesASGIHandler(view_threads=2)
    status, headers, _ = asyncio.run(_get(app, session_url("local", "abc")))
    # Login is required (LoginRequiredMiddleware) and CSP is set on the way out.
    assert status == 302 and headers["location"].startswith("/accounts/login/")
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"


def test_pages_run_on_the_workers_lanes_and_no_more_at_once():
    app = HermesASGIHandler(view_threads=2)
    lock, inside, most, threads = threading.Lock(), [0], [0], set()

    def view(request):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
            threads.add(threading.get_ident())
        time.sleep(0.05)  # long enough for six unbounded requests to overlap
        with lock:
            inside[0] -= 1
        return HttpResponse("ok")

    app.sync_handler.get_response = view

    async def six():
        return await asyncio.gather(*(_get(app, f"/page-{n}/") for n in range(6)))

    answers = asyncio.run(six())
    assert [status for status, _, _ in answers] == [200] * 6
    assert most[0] == 2  # two at once, never more
    assert len(threads) == 2  # six requests, served on the same two long-lived threads


def test_a_proxy_root_path_is_left_out_when_choosing_the_lane():
    stream = reverse("chat_turn_stream", kwargs={"endpoint": "local", "turn_id": 7})
    scope = {**_scope("/hermes" + stream), "root_path": "/hermes"}
    assert route_path(scope) == stream and route_kind(route_path(scope)) != PAGE


def test_request_signals_the_view_and_the_close_share_the_lanes_thread():
    """Django closes a request's database connections from its request signals:
    they must run on the thread the view's queries ran on."""
    from django.core.signals import request_finished, request_started

    app = HermesASGIHandler(view_threads=1)
    seen = []

    def started(**kwargs):
        seen.append(("started", threading.current_thread().name))

    def finished(**kwargs):
        seen.append(("finished", threading.current_thread().name))

    def view(request):
        seen.append(("view", threading.current_thread().name))
        return HttpResponse("ok")

    app.sync_handler.get_response = view
    request_started.connect(started)
    request_finished.connect(finished)
    try:
        asyncio.run(_get(app, "/page/"))
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    assert [step for step, _ in seen] == ["started", "view", "finished"]
    threads = {name for _, name in seen}
    assert len(threads) == 1 and threads.pop().startswith("view-lane-"), seen
