"""The ASGI entry point: Django's stock handlers side by side, pages never held by a slow client."""

import asyncio

from django.urls import reverse

from hermes_ui import asgi
from hermes_ui.web.links import session_url


def _scope(path: str, method: str = "GET", headers=()) -> dict:
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver"), *headers],
        "server": ("testserver", 80),
        "client": ("127.0.0.1", 50000),
    }


async def _call(app, scope, messages):
    """Run ``app``; ``messages`` are what the client sends, then it stays connected."""
    sent, queue = [], list(messages)

    async def receive():
        if queue:
            item = queue.pop(0)
            if isinstance(item, asyncio.Event):
                await item.wait()
                return {"type": "http.disconnect"}
            return item
        await asyncio.Event().wait()

    async def send(message):
        sent.append(message)

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body


def _empty_body():
    return [{"type": "http.request", "body": b"", "more_body": False}]


def test_async_views_go_to_the_asgi_handler_and_pages_to_the_wsgi_one():
    stream = reverse("chat_turn_stream", kwargs={"endpoint": "local", "turn_id": 7})
    assert asgi.is_stream(stream)
    assert asgi.is_stream(session_url("local", "abc", "session_export"))
    assert asgi.is_stream(reverse("session_export_q", kwargs={"endpoint": "local"}))
    assert not asgi.is_stream(session_url("local", "abc"))
    assert not asgi.is_stream(reverse("session_list", kwargs={"endpoint": "local"}))
    assert not asgi.is_stream("/no/such/page/")


def test_a_page_runs_the_whole_middleware_chain():
    status, headers, _ = asyncio.run(
        _call(asgi.application, _scope(session_url("local", "abc")), _empty_body())
    )
    # Login is required (LoginRequiredMiddleware) and CSP is set on the way out.
    assert status == 302 and headers["location"].startswith("/accounts/login/")
    assert "default-src 'self'" in headers["content-security-policy"]
    assert headers["x-frame-options"] == "DENY"


def test_a_body_that_does_not_arrive_in_time_never_reaches_a_page_thread(settings, monkeypatch):
    settings.HERMES_UI_BODY_SECONDS = 0.3
    reached = []
    monkeypatch.setattr(asgi, "pages", lambda *args: reached.append(args))
    first = {"type": "http.request", "body": b"username=a", "more_body": True}
    scope = _scope("/accounts/login/", "POST", [(b"content-length", b"1000000")])
    status, _, body = asyncio.run(_call(asgi.application, scope, [first]))
    assert status == 408 and b"did not arrive in time" in body
    assert reached == []


def test_a_declared_body_over_the_limit_is_refused_before_it_is_read(settings, monkeypatch):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    reached = []
    monkeypatch.setattr(asgi, "pages", lambda *args: reached.append(args))
    scope = _scope("/accounts/login/", "POST", [(b"content-length", b"5000")])
    status, _, _ = asyncio.run(_call(asgi.application, scope, []))
    assert status == 413 and reached == []


def test_a_body_growing_past_the_limit_is_refused(settings, monkeypatch):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    monkeypatch.setattr(asgi, "pages", lambda *args: None)
    chunk = {"type": "http.request", "body": b"x" * 600, "more_body": True}
    status, _, _ = asyncio.run(
        _call(asgi.application, _scope("/accounts/login/", "POST"), [chunk, chunk])
    )
    assert status == 413


def test_a_page_learns_that_its_browser_went_away(monkeypatch):
    seen = {}

    async def page(scope, receive, send):
        gone = scope[asgi.GONE]
        seen["before"] = gone.is_set()
        leave.set()
        await asyncio.get_running_loop().run_in_executor(None, gone.wait, 5)
        seen["after"] = gone.is_set()
        await send({"type": "http.response.start", "status": 204, "headers": []})
        await send({"type": "http.response.body", "body": b""})

    async def run():
        nonlocal leave
        leave = asyncio.Event()
        return await _call(asgi.application, _scope("/page/"), [*_empty_body(), leave])

    leave = None
    monkeypatch.setattr(asgi, "pages", page)
    status, _, _ = asyncio.run(run())
    assert status == 204
    assert seen == {"before": False, "after": True}


def test_pages_share_a_pool_of_view_threads(settings):
    assert asgi.pages.executor._max_workers == settings.HERMES_UI_VIEW_THREADS


def test_an_event_stream_runs_the_whole_middleware_chain_on_the_asgi_handler():
    stream = reverse("chat_turn_stream", kwargs={"endpoint": "local", "turn_id": 7})
    status, headers, _ = asyncio.run(_call(asgi.application, _scope(stream), _empty_body()))
    assert status == 302 and headers["location"].startswith("/accounts/login/")
    assert "default-src 'self'" in headers["content-security-policy"]


def test_health_probes_never_wait_for_a_page_thread():
    # Async views: while every page thread waits on a slow Hermes, they still answer.
    assert asgi.is_stream("/healthz") and asgi.is_stream("/readyz")


def test_liveness_reads_no_session_even_for_a_signed_in_browser(
    client, django_user_model, django_assert_num_queries
):
    from hermes_ui.access.grants import set_role
    from hermes_ui.web.roles import SUPPORT

    user = django_user_model.objects.create_user("probe-user", password="x" * 20)
    set_role(user, SUPPORT)
    client.force_login(user)
    with django_assert_num_queries(0):  # the database may be down: liveness must not ask it
        assert client.get("/healthz").status_code == 200


def test_pages_on_one_thread_keep_their_django_cache_objects():
    """Each view thread keeps one context, as under a WSGI server: Django's cache objects
    (and so their Redis connections) last from page to page instead of being rebuilt."""
    import threading

    from django.core.cache import caches
    from django.core.signals import request_finished, request_started

    seen = []

    def started(**kwargs):
        seen.append(("started", threading.get_ident(), caches["default"]))

    def finished(**kwargs):
        seen.append(("finished", threading.get_ident(), caches["default"]))

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        for _ in range(asgi.pages.executor._max_workers + 2):
            asyncio.run(_call(asgi.application, _scope(session_url("local", "abc")), _empty_body()))
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)
    by_thread = {}
    for _, thread, cache in seen:
        by_thread.setdefault(thread, set()).add(id(cache))
    assert all(len(objects) == 1 for objects in by_thread.values())
    assert len(by_thread) < len(seen) // 2  # some thread served more than one page
