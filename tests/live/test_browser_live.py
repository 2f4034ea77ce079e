"""In Chromium: changes made on Hermes directly reach open pages without a reload."""

from __future__ import annotations

import contextlib
import sqlite3
import threading
import time

import httpx
import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.lineage.test_browser_lineage import wait_until_indexed
from tests.support.browser import DashboardServer, log_in, screenshot, wait_for_js
from tests.support.peers import make

pytestmark = [pytest.mark.browser, pytest.mark.peer]
HOSTILE = '<img src=x onerror="window.__pwned=1">Hostile'
RENAMED = "Secret renamed title"


class RawStream:
    """The live stream as the support user's browser receives it, raw, in a thread."""

    def __init__(self, base: str, cookies: dict):
        self.text = ""
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._read, args=(base, cookies), daemon=True)
        self.thread.start()

    def _read(self, base, cookies):
        client = httpx.Client(base_url=base, cookies=cookies, timeout=None)
        stream = client.stream("GET", "/e/local/live/?after=0")
        # suppress: the server may stop first.
        with contextlib.suppress(httpx.HTTPError), client, stream as answer:
            for chunk in answer.iter_text():
                self.text += chunk
                if self.stop.is_set():
                    return


def _polled_since(server, moment: float) -> int:
    """Wait until the refresher has polled the endpoint after ``moment`` (a watch began);
    the last event id then."""
    path = server.data_dir / "hermes_ui.sqlite3"
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        with contextlib.closing(sqlite3.connect(path)) as db:
            row = db.execute("select polled_at from live_livestatus where endpoint='local'")
            polled = row.fetchone()
            last = db.execute("select coalesce(max(id), 0) from live_liveevent").fetchone()[0]
        if polled and polled[0] > time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(moment)):
            return last
        time.sleep(0.1)
    raise AssertionError("the refresher did not poll the watched endpoint")


def _count(page) -> int:
    """The number the banner gives (0 while it is hidden)."""
    if page.locator("#live-banner").is_hidden():
        return 0
    return int(page.locator("#live-text").inner_text().split()[0])


def _ids(page) -> list[str]:
    return page.evaluate(
        "Array.from(document.querySelectorAll('table.sessions tbody tr code[title]'))"
        ".map(c => c.getAttribute('title'))"
    )


def _row_kinds(session_id: str) -> str:
    return (
        "Array.from(document.querySelectorAll('table.sessions tbody tr')).some(r => "
        f"r.querySelector('code[title]')?.getAttribute('title') === {session_id!r} && "
        "r.classList.contains('live-changed'))"
    )


def test_new_turn_and_rename_reach_an_open_index_page(page, live_dashboard, live_logins, live_peer):
    base = live_dashboard.base_url
    endpoint = Endpoint("local", live_peer.base_url, live_peer.key)
    live_logins.sign_in(page, "support")
    wait_until_indexed(page, base)
    cookies = {c["name"]: c["value"] for c in page.context.cookies()}
    raw = RawStream(base, cookies)
    page.goto(base + "/e/local/sessions/")
    before = _ids(page)
    turn_target, rename_target = before[1], before[2]
    wait_for_js(page, "!document.getElementById('live-region').hidden", timeout=5)
    # Changes the index had not caught up with when the page was drawn count too:
    # what this test makes is counted on top of them.
    last = _polled_since(live_dashboard, time.time() + 1)
    wait_for_js(page, f"Number(document.getElementById('live-region').dataset.liveLast) >= {last}")
    baseline = _count(page)

    make(endpoint, "live-browser-new", title=HOSTILE)
    wait_for_js(page, "!document.getElementById('live-banner').hidden", timeout=5)
    wait_for_js(page, f"parseInt(document.getElementById('live-text').textContent) > {baseline}", 5)
    assert _count(page) == baseline + 1

    client = HermesClient(endpoint)
    try:
        client.chat(turn_target, message="from another client")
        wait_for_js(page, _row_kinds(turn_target), timeout=5)
        client.patch_session(rename_target, idempotency_key=mint_key(), title=RENAMED)
        wait_for_js(page, _row_kinds(rename_target), timeout=5)
    finally:
        client.close()
    badges = page.locator("tr.live-changed .live-badge").all_inner_texts()
    assert "new messages" in " ".join(badges) and "renamed" in " ".join(badges)
    assert _ids(page) == before  # marked in place, never re-sorted
    assert _count(page) == baseline + 3
    assert "new or changed sessions" in page.locator("#live-banner").inner_text()
    assert page.evaluate("window.__pwned") is None
    screenshot(page, "live-index")

    # The raw stream the support user received: ids and kinds, never a title.
    raw.stop.set()
    assert "live-browser-new" in raw.text and rename_target in raw.text
    assert "Hostile" not in raw.text and "onerror" not in raw.text and RENAMED not in raw.text
    # Everything the banner leads to is this page, with its filter, for this user.
    with page.expect_navigation():  # "Show" reloads: wait for the new page, not the old one
        page.click("#live-show")
    assert page.url.endswith("/e/local/sessions/")
    assert "live-browser-new" in _ids(page)


def test_a_turn_added_elsewhere_shows_on_the_open_session_page(
    page, live_dashboard, live_logins, live_peer
):
    base = live_dashboard.base_url
    endpoint = Endpoint("local", live_peer.base_url, live_peer.key)
    make(endpoint, "live-browser-open", title="open on a page")
    live_logins.sign_in(page, "support")
    answered = []  # what live.js fetches (EventSource, fetch), and the answers
    page.on(
        "response",
        lambda r: (
            r.request.resource_type in ("eventsource", "fetch")
            and answered.append((r.url, r.status))
        ),
    )
    page.goto(base + session_url("local", "live-browser-open"))
    wait_for_js(page, "!document.getElementById('live-region').hidden", timeout=5)
    client = HermesClient(endpoint)
    try:
        client.chat("live-browser-open", message="a turn from the CLI")
    finally:
        client.close()
    wait_for_js(page, "!document.getElementById('live-banner').hidden", timeout=5)
    text = page.locator("#live-banner").inner_text()
    assert "This session changed on Hermes (new messages" in text
    # The new messages are appended through the page's own chunk view, escaped there.
    wait_for_js(page, "document.querySelectorAll('#messages article.live-appended').length >= 2", 5)
    appended = page.locator("#messages article.live-appended").all_inner_texts()
    assert "a turn from the CLI" in " ".join(appended)
    assert page.locator("#transcript-h ~ p.empty").is_hidden()
    screenshot(page, "live-session")
    # A support user's stream led only to this page's own views, each answered.
    stream = base + "/e/local/live/"
    chunks = base + session_url("local", "live-browser-open", "session_messages")
    assert answered and all(status == 200 for _, status in answered), answered
    assert {u.split("?")[0] for u, _ in answered} == {stream, chunks}, answered
    with page.expect_navigation():  # "Show" reloads: wait for the new page, not the old one
        page.click("#live-show")
    assert page.locator("#messages article").count() >= 2


def test_the_live_session_list_says_what_is_new(page, live_dashboard, live_logins, live_peer):
    base = live_dashboard.base_url
    endpoint = Endpoint("local", live_peer.base_url, live_peer.key)
    live_logins.sign_in(page, "support")
    page.goto(base + "/e/local/sessions/?source=api_server")
    wait_for_js(page, "!document.getElementById('live-region').hidden", timeout=5)
    make(endpoint, "live-browser-listed", title="listed")
    wait_for_js(page, "!document.getElementById('live-banner').hidden", timeout=5)
    assert "new or changed session" in page.locator("#live-banner").inner_text()
    with page.expect_navigation():  # "Show" reloads: wait for the new page, not the old one
        page.click("#live-show")
    assert page.url.endswith("/e/local/sessions/?source=api_server")  # the same filter
    assert page.locator("code[title='live-browser-listed']").count() == 1


def test_an_unreachable_hermes_pauses_live_updates_on_the_page(page, tmp_path):
    from types import SimpleNamespace

    from tests.support.peers import unreachable_url

    down = SimpleNamespace(base_url=unreachable_url(), key="d" * 24)
    server = DashboardServer(
        tmp_path, down, extra_env={"HERMES_UI_LIVE_SECONDS": "0.5"}, refresher=True
    ).start()
    try:
        log_in(page, server.base_url, "support")
        # Drawn from the index: no Hermes needed.
        page.goto(server.base_url + "/e/local/sessions/?view=all")
        wait_for_js(page, "!document.getElementById('live-paused').hidden", timeout=15)
        assert "Live updates paused" in page.locator("#live-paused").inner_text()
        assert page.locator("#live-banner").is_hidden()
        screenshot(page, "live-paused")
    finally:
        server.stop()
