"""In Debian's Chromium: send a turn and watch the answer grow, finish and be verified."""

import pytest
from playwright.sync_api import expect

from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, open_chat, peer_messages
from tests.support.browser import screenshot, wait_for_js

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_a_turn_streams_into_the_page_and_finishes(page, dashboard, dashboard_logins, hermes_peer):
    session_id = new_session(hermes_peer, "browser-chat")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", session_id))
    open_chat(page)
    page.fill("#chat-form textarea[name=message]", "grow please [[slow:8]]")
    page.click("#chat-send")

    answer = page.locator(".turn .answer").first
    page.wait_for_selector(".turn-state[data-state=streaming]")
    wait_for_js(page, "document.querySelector('.turn .answer')?.textContent.includes('slow2')")
    early = answer.text_content()
    assert "slow8" not in early
    assert page.locator("#chat-send").is_disabled()
    screenshot(page, "chat-streaming")
    wait_for_js(page, "document.querySelector('.turn .answer')?.textContent.includes('slow5')")
    assert len(answer.text_content()) > len(early)  # it grew delta by delta

    page.wait_for_selector(".turn-state[data-state=completed]", timeout=20_000)
    page.wait_for_selector("[data-durability=verified]", timeout=10_000)
    final = page.locator(".turn .answer").first.text_content().strip()
    assert final == "slow1 slow2 slow3 slow4 slow5 slow6 slow7 slow8"
    assert page.locator(".turn .usage").text_content().startswith("Tokens: input")
    assert not page.locator("#chat-send").is_disabled()  # the form may send again
    assert page.get_by_text("is not a rollback").first.is_visible()
    screenshot(page, "chat-completed")

    # A reload shows the finished turn again without sending it again.
    page.reload()
    page.wait_for_selector(".turn-state[data-state=completed]")
    users = [r for r in peer_messages(hermes_peer, session_id)["data"] if r["role"] == "user"]
    assert len(users) == 1


def test_an_empty_message_is_refused_inline(page, dashboard, dashboard_logins, hermes_peer):
    session_id = new_session(hermes_peer, "browser-chat")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", session_id))
    open_chat(page)
    with page.expect_response(lambda r: r.request.method == "POST") as refused:
        page.click("#chat-send")
    assert refused.value.status == 400  # an honest refusal, which htmx still swaps in
    page.wait_for_selector("#chat #error-message")
    assert "Type a message" in page.locator("#error-message").text_content()
    assert page.locator("header.topbar").count() == 1  # the box, not a page in a page
    assert page.url.endswith(session_url("local", session_id))
    screenshot(page, "chat-missing-message")


def test_a_second_tab_gets_the_busy_refusal_in_place(
    page, dashboard, dashboard_logins, hermes_peer
):
    session_id = new_session(hermes_peer, "browser-chat")
    dashboard_logins.sign_in(page, "support")
    url = dashboard.base_url + session_url("local", session_id)
    page.goto(url)
    other = page.context.new_page()
    other.goto(url)
    open_chat(page)
    open_chat(other)  # both forms open before either sends
    page.fill("#chat-form textarea[name=message]", "hold the line [[slow:6]]")
    page.click("#chat-send")
    page.wait_for_selector(".turn-state[data-state=streaming]")
    other.fill("#chat-form textarea[name=message]", "me too")
    with other.expect_response(lambda r: r.request.method == "POST") as refused:
        other.click("#chat-send")
    assert refused.value.status == 409
    other.wait_for_selector("#chat #chat-notice[data-code=turn_running]")
    assert "one at a time" in other.locator("#chat-notice").text_content()
    assert other.locator("header.topbar").count() == 1
    screenshot(other, "chat-busy-409")
    page.wait_for_selector(".turn-state[data-state=completed]", timeout=20_000)
    users = [r for r in peer_messages(hermes_peer, session_id)["data"] if r["role"] == "user"]
    assert [r["content"] for r in users] == ["hold the line [[slow:6]]"]


def test_a_reload_mid_turn_shows_what_was_received_and_follows_it(
    page, dashboard, dashboard_logins, hermes_peer
):
    session_id = new_session(hermes_peer, "browser-chat")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", session_id))
    open_chat(page)
    page.fill("#chat-form textarea[name=message]", "reload me [[slow:10]]")
    page.click("#chat-send")
    wait_for_js(page, "document.querySelector('.turn .answer')?.textContent.includes('slow3')")
    page.reload()
    # The reloaded page shows the answer so far at once, then keeps growing.
    assert "slow" in page.locator(".turn .answer").first.text_content()
    # A running turn keeps the whole box (the form opens on demand otherwise): its Send
    # waits for the turn, whose last frame hands it back.
    assert page.locator("#chat-send").is_disabled()
    page.wait_for_selector(".turn-state[data-state=completed]", timeout=20_000)
    expect(page.locator("#chat-send")).to_be_enabled(timeout=10_000)
    final = page.locator(".turn .answer").first.text_content().strip()
    assert final == " ".join(f"slow{i}" for i in range(1, 11))
    users = [r for r in peer_messages(hermes_peer, session_id)["data"] if r["role"] == "user"]
    assert len(users) == 1


def test_cancel_in_the_page_says_it_is_not_a_rollback(
    page, dashboard, dashboard_logins, hermes_peer
):
    session_id = new_session(hermes_peer, "browser-chat")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", session_id))
    open_chat(page)
    page.fill("#chat-form textarea[name=message]", "stop me [[slow:20]]")
    page.click("#chat-send")
    wait_for_js(page, "document.querySelector('.turn .answer')?.textContent.includes('slow2')")
    page.locator(".cancel-form button").click()
    page.wait_for_selector(".turn-state[data-state=cancelled]", timeout=10_000)
    status = page.locator(".turn-status").text_content()
    assert "not a rollback" in status and "may still finish" in status
    # The turn's last frame gives the form back (an out-of-band Send button);
    # it may come a moment after the frame that shows the cancelled state.
    expect(page.locator("#chat-send")).to_be_enabled(timeout=10_000)
    screenshot(page, "chat-cancelled")


def test_the_form_opens_on_demand_with_its_key_and_takes_the_focus(
    page, dashboard, dashboard_logins, hermes_peer
):
    session_id = new_session(hermes_peer, "browser-chat")
    dashboard_logins.sign_in(page, "support")
    url = dashboard.base_url + session_url("local", session_id)
    page.goto(url)
    page.wait_for_selector("#chat-open")
    assert page.locator("#chat textarea").count() == 0  # no empty text box on every view
    assert "w write a message" in page.locator("#session-keys").text_content()
    wait_for_js(page, "!!window.htmx")
    page.keyboard.press("w")
    page.wait_for_selector("#chat-form textarea[name=message]")
    wait_for_js(page, "document.activeElement && document.activeElement.name === 'message'")
    assert page.url == url  # opened in place
    assert page.get_by_text("is not a rollback").first.is_visible()  # the warning comes with it
    page.keyboard.type("w is typed here, not a shortcut")
    assert (
        page.locator("#chat-form textarea[name=message]").input_value()
        == "w is typed here, not a shortcut"
    )
    screenshot(page, "chat-opened")
