"""In Debian's Chromium: long work runs as a job whose page follows it, with and without JS."""

import re
import time

import pytest

from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, open_chat, peer_messages
from tests.support.browser import assert_no_csp_violations, screenshot, watched_context
from tests.support.waiting import until

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_without_javascript_a_turn_waits_on_a_page_that_refreshes_itself(
    chromium, dashboard, dashboard_logins, hermes_peer
):
    context = watched_context(chromium, java_script_enabled=False)
    page = context.new_page()
    base = dashboard.base_url
    session_id = new_session(hermes_peer, "browser-plain")
    dashboard_logins.sign_in(page, "support")
    page.goto(base + session_url("local", session_id))
    open_chat(page)  # without JS: the form's own page
    assert page.url.endswith(session_url("local", session_id, "session_chat"))
    page.fill("#chat-form textarea[name=message]", "no script here [[slow:15]]")
    page.click("#chat-send")
    # The POST answered at once: the job's page, reloading itself every 2 s.
    page.wait_for_url(re.compile(r"/jobs/\d+/$"), timeout=10_000)
    assert "of 1 turn" in page.locator("#job-progress").text_content()
    assert page.locator('meta[http-equiv="refresh"]').count() == 1
    screenshot(page, "job-plain-chat-running")
    # It ends where the form went before: the session's chat, the turn completed.
    page.wait_for_url(re.compile(r"/sessions/.+#chat$"), timeout=60_000)
    page.wait_for_selector(".turn-state[data-state=completed]")
    assert "slow15" in page.locator(".turn .answer").first.text_content()
    users = [r for r in peer_messages(hermes_peer, session_id)["data"] if r["role"] == "user"]
    assert len(users) == 1
    context.close()
    assert_no_csp_violations(context)


def test_a_bulk_close_shows_its_progress_page_then_its_results(
    page, dashboard, dashboard_logins, hermes_peer
):
    prefix = f"browser-bulk-{int(time.time() * 1000)}"
    ids = [new_session(hermes_peer, prefix) for _ in range(2)]
    base = dashboard.base_url
    dashboard_logins.sign_in(page, "support")
    page.goto(base + "/e/local/sessions/")
    page.get_by_role("button", name="Refresh").click()
    page.locator("#index-freshness", has_text=re.compile(r"\bIndexed\b")).wait_for(timeout=30_000)
    # The refresh is paced by Hermes' latency (index/pacing.py): on a loaded machine
    # "Indexed" (of the sync before) can show while it still runs. Wait for the rows.
    boxes = [f'#bulk-form input[name="ids"][value="{sid}"]' for sid in ids]

    def listed():
        page.goto(base + f"/e/local/sessions/?q={prefix}&table=on")
        return all(page.locator(box).count() for box in boxes)

    until(listed, 60, f"the sessions {ids} never reached the index", interval=0.5)
    for session_id in ids:
        page.locator(f'#bulk-form input[name="ids"][value="{session_id}"]').check()
    page.locator("#bulk-close").click()
    page.wait_for_url("**/bulk/close/")
    page.get_by_role("button", name="Close 2 sessions").click()
    page.wait_for_url(re.compile(r"/jobs/\d+/$"))
    page.locator("#job[data-state=done]").wait_for(timeout=30_000)
    assert page.locator('#bulk-close-results tr[data-verdict="closed"]').count() == 2
    assert "Done: 2 of 2 sessions (2 closed)" in page.locator("#job-progress").text_content()
    screenshot(page, "job-bulk-close-done")
