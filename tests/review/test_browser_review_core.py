"""In Chromium: a queue of 30 sessions, 2 reviews each, worked through by two reviewers in
two browser contexts with the keyboard only (1-9, Tab, Esc, j/k, Ctrl+Enter). A reservation
keeps them apart: at no moment do both hold the same item."""

import re
import secrets

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.support.browser import (
    PASSWORD,
    assert_no_csp_violations,
    log_in,
    screenshot,
    wait_for_js,
    watched_context,
)

pytestmark = [pytest.mark.browser, pytest.mark.peer]
COUNT = 30


def _make_sessions(peer, prefix: str) -> list[str]:
    client = HermesClient(Endpoint("local", peer.base_url, peer.key))
    made = []
    try:
        for n in range(COUNT):
            session_id = f"{prefix}-{n:02d}"
            client.create_session(idempotency_key=mint_key(), session_id=session_id)
            client.chat(session_id, message=f"question {n}")
            made.append(session_id)
    finally:
        client.close()
    return made


def _queue_with_all_matching(page, dashboard, prefix: str) -> str:
    """Create the queue (2 reviews per item), then add every indexed session of ``prefix``."""
    base = dashboard.base_url
    page.goto(base + "/e/local/review/")
    page.fill("#id_name", prefix)
    page.select_option("#id_reviews_needed", "2")
    page.get_by_role("button", name="Create queue").click()
    page.wait_for_url(re.compile(r"/review/\d+/$"))
    queue_url = page.url
    # The shared dashboard may have been indexed before: "Indexed" on the page would not
    # say these sessions are in. One refresher pass, done when it returns, does.
    dashboard.manage("run_periodic", "index")
    page.goto(base + f"/e/local/sessions/?q={prefix}&table=on")
    page.locator("#select-all-matching").check()
    page.locator("#review-bulk-add").click()
    page.wait_for_url("**/review/bulk-add/")
    page.select_option("#id_queue", label=prefix)  # other tests' queues share the dashboard
    page.locator("#review-bulk-confirm").click()
    page.wait_for_url(queue_url)
    assert f"{COUNT} need review" in page.locator("#queue-progress").inner_text()
    return queue_url


def _current(page):
    """The item the page shows now (None: the "nothing left" page)."""
    page.wait_for_load_state("domcontentloaded")
    if page.locator("#review-done").count():
        return None
    wait_for_js(page, "document.body.classList.contains('rv-keys-on')")
    return int(page.locator("#review-page").get_attribute("data-item"))


def _label_by_keyboard(page, quality: str, policy: str) -> None:
    """Resolved: 1 (yes); Tab to quality and type it; Esc; j to the first message; its
    policy by number; Ctrl+Enter completes and opens the next item."""
    page.keyboard.press("1")
    page.keyboard.press("Tab")
    page.keyboard.type(quality)
    page.keyboard.press("Escape")
    page.keyboard.press("j")
    assert page.locator(".rv-msg.rv-current-msg").count() == 1
    page.keyboard.press(policy)
    with page.expect_navigation():
        page.keyboard.press("Control+Enter")


def test_two_reviewers_work_a_queue_of_30_by_keyboard(
    chromium, dashboard, dashboard_logins, hermes_peer
):
    base, prefix = dashboard.base_url, f"rvkeys-{secrets.token_hex(3)}"
    made = _make_sessions(hermes_peer, prefix)
    dashboard.manage("create_user", "reviewer2", "--role", "reviewer", "--password", PASSWORD)
    contexts = [watched_context(chromium, viewport={"width": 1400, "height": 900}) for _ in "ab"]
    one, two = (context.new_page() for context in contexts)
    dashboard_logins.sign_in(one, "reviewer")
    log_in(two, base, "reviewer2")  # made by this test
    queue_url = _queue_with_all_matching(one, dashboard, prefix)
    one.goto(queue_url + "next/")
    two.goto(queue_url + "next/")
    seen = {"one": [], "two": []}
    holding = {"one": _current(one), "two": _current(two)}
    screenshot(one, "review-item-keyboard")
    turns = 0
    while holding["one"] is not None or holding["two"] is not None:
        assert holding["one"] != holding["two"], f"both reviewers hold item {holding['one']}"
        for name, page, keys in (("one", one, ("4", "2")), ("two", two, ("3", "4"))):
            if holding[name] is None:
                continue
            _label_by_keyboard(page, *keys)
            seen[name].append(holding[name])
            holding[name] = _current(page)
            assert holding["one"] != holding["two"] or holding["one"] is None
        turns += 1
        assert turns <= COUNT + 2, "the reviewers went round more often than there are items"
    # Each reviewer reviewed every item exactly once; every item is completed.
    assert len(seen["one"]) == len(set(seen["one"])) == COUNT
    assert set(seen["one"]) == set(seen["two"])
    one.goto(queue_url)
    progress = one.locator("#queue-progress").inner_text()
    assert f"{COUNT} completed" in progress and "0 need review" in progress
    for reviewer in ("reviewer", "reviewer2"):
        row = one.locator(f'#queue-people tr[data-reviewer="{reviewer}"]')
        assert row.locator('[data-col="completed"]').inner_text() == str(COUNT)
        assert row.locator('[data-col="needs_review"]').inner_text() == "0"
    screenshot(one, "review-queue-done")
    # The labels given by keyboard show on a session's page, one row per reviewer.
    one.goto(base + session_url("local", made[0]))
    one.click("#panel-review > summary")  # a side panel of the page, closed at first
    table = one.locator("#review-label-table").inner_text()
    for text in ("resolved", "quality", "personal data", "other"):
        assert text in table
    assert "\t4\t" in table and "\t3\t" in table
    screenshot(one, "review-session-labels")
    for context in contexts:
        context.close()
        assert_no_csp_violations(context)


def test_without_javascript_the_form_posts_and_opens_the_next_item(
    chromium, dashboard, dashboard_logins, hermes_peer
):
    base, prefix = dashboard.base_url, f"rvplain-{secrets.token_hex(3)}"
    client = HermesClient(Endpoint("local", hermes_peer.base_url, hermes_peer.key))
    try:
        made = [f"{prefix}-{n}" for n in range(2)]
        for session_id in made:
            client.create_session(idempotency_key=mint_key(), session_id=session_id)
            client.chat(session_id, message="plain question")
    finally:
        client.close()
    context = watched_context(chromium, java_script_enabled=False)
    page = context.new_page()
    dashboard_logins.sign_in(page, "reviewer")
    page.goto(base + "/e/local/review/")
    page.fill("#id_name", prefix)
    page.get_by_role("button", name="Create queue").click()
    page.wait_for_url(re.compile(r"/review/\d+/$"))
    queue_url = page.url
    for session_id in made:  # the session page's own form
        page.goto(base + session_url("local", session_id))
        page.click("#panel-review > summary")  # a side panel of the page, closed at first
        page.select_option("#review-add-queue", label=prefix)
        page.get_by_role("button", name="Add to queue").click()
        page.wait_for_url(re.compile(r"#review-labels$"))
    page.goto(queue_url + "next/")
    first = _item_of(page)
    page.locator("input[name='s-resolved'][value='no']").check()
    page.fill("input[name='s-quality']", "2")
    page.locator(".rv-msg.rv-has-fields").first.locator("input[value='other']").check()
    page.locator("#rv-complete").click()
    page.wait_for_url(re.compile(r"/items/\d+/$"))
    assert _item_of(page) != first  # the next item, reserved for this reviewer
    page.locator("#rv-complete").click()
    page.wait_for_selector("#review-done")
    page.goto(queue_url)
    assert "2 completed" in page.locator("#queue-progress").inner_text()
    context.close()
    assert_no_csp_violations(context)


def _item_of(page) -> int:
    return int(page.locator("#review-page").get_attribute("data-item"))


def test_an_admin_writes_a_rubric_in_the_browser_and_edits_it_into_version_2(
    page, dashboard, dashboard_logins
):
    name = f"Tone {secrets.token_hex(3)}"
    dashboard_logins.sign_in(page, "admin")
    page.goto(dashboard.base_url + "/review/rubrics/")
    page.locator("#rubric-new").click()
    page.fill("#id_name", name)
    page.fill("#id_f-0-key", "tone")
    page.select_option("#id_f-0-type", "choice")
    page.select_option("#id_f-0-applies", "message")
    page.fill("#id_f-0-choices", "\n".join(f"option {n}" for n in range(1, 11)))  # one too many
    page.get_by_role("button", name="Save").click()
    assert "2 to 9 options" in page.locator("#rubric-field-1 .field-error").inner_text()
    page.fill("#id_f-0-choices", "calm\nterse\nrude")
    page.fill("#id_f-1-key", "score")
    page.select_option("#id_f-1-type", "number")
    page.select_option("#id_f-1-applies", "session")
    page.fill("#id_f-1-min", "0")
    page.fill("#id_f-1-max", "10")
    page.get_by_role("button", name="Save").click()
    page.wait_for_url(re.compile(r"/review/rubrics/\d+/$"))
    assert "version 1" in page.locator("h1").inner_text()
    page.locator("#id_f-2-key").fill("fine")
    page.select_option("#id_f-2-type", "bool")
    page.select_option("#id_f-2-applies", "session")
    with page.expect_navigation():  # the same address again: wait for the new page
        page.get_by_role("button", name="Save as a new version").click()
    assert "version 2" in page.locator("h1").inner_text()
    assert page.locator("#rubric-versions li").count() == 2
    screenshot(page, "review-rubric-editor")
