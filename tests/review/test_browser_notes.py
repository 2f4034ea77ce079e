"""In Chromium, under the Content-Security-Policy: notes, a correction and a mention with
hostile text, made through the page's own forms (htmx), run no payload and stay text."""

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.review.notes_corpus import HOSTILE, HOSTILE_TEXT
from tests.support.browser import screenshot, wait_for_js

pytestmark = [pytest.mark.browser, pytest.mark.peer]

# Any payload that runs calls one of these; the trap reports it to the test.
_PAYLOAD_TRAP = """
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = (...args) => { window.__hermesPayload(`${name}(${args.join(",")})`); };
}
"""


def _assistant_message(dashboard) -> int:
    client = HermesClient(
        Endpoint("local", dashboard.env["HERMES_API_URL"], dashboard.env["HERMES_API_KEY"])
    )
    try:
        rows = client.get_messages(ids.XSS_TITLE_SESSION)["data"]
    finally:
        client.close()
    return next(row["id"] for row in rows if row["role"] == "assistant")


def test_hostile_notes_correction_and_mention_run_no_payload(page, dashboard, dashboard_logins):
    ran: list[str] = []
    page.context.expose_binding("__hermesPayload", lambda _source, text: ran.append(text))
    page.context.add_init_script(_PAYLOAD_TRAP)
    page.on("dialog", lambda dialog: (ran.append(f"dialog {dialog.message}"), dialog.dismiss()))
    mid = _assistant_message(dashboard)
    dashboard_logins.sign_in(page, "reviewer")
    page.goto(dashboard.base_url + session_url("local", ids.XSS_TITLE_SESSION))

    # The session's thread (a side panel, closed at first): the form swaps the thread in place.
    page.click("#panel-notes > summary")
    page.fill("#id_note_session_body", HOSTILE_TEXT + "\n@admin2 please look")
    page.click("#notes button[type=submit]")
    page.locator("#notes .note-body").wait_for()

    # A message's thread, opened in place under the message.
    region = page.locator(f"#msg-review-{mid}")
    region.locator(".notes-link").click()
    page.locator(f"#id_note_{mid}_body").fill(HOSTILE_TEXT)
    page.click(f"#notes-msg-{mid} button[type=submit]")
    wait_for_js(page, f"document.querySelector('#msg-note-count-{mid}').textContent === '1'")
    assert "<script>alert('note')</script>" in page.inner_text(f"#notes-msg-{mid} .note-body")
    region.screenshot(path=str(screenshot(page, "review-notes-message-thread")))

    # The correction: the form opens in place, the saved diff replaces the region.
    region.locator(".correct-link").click()
    page.locator(f"#id_correction_{mid}_text").fill(HOSTILE_TEXT)
    page.click(f"#correction-form-{mid} button[type=submit]")
    page.locator(f"#msg-review-{mid} .correction").wait_for()
    assert page.locator(f"#msg-review-{mid} .correction ins").count() >= 1

    page.reload()
    page.locator(f"#msg-review-{mid} .correction").wait_for()
    page.click("#panel-notes > summary")  # the session's own notes, shown too
    main = page.inner_text("main")
    for line in HOSTILE:
        assert line in main  # every hostile line shown as text
    assert page.locator("main img[src='x']").count() == 0
    assert page.locator("main script:not([src])").count() == 0
    assert page.locator("a[href^='javascript:' i]").count() == 0
    page.locator(f"#msg-{mid}").scroll_into_view_if_needed()
    screenshot(page, "review-notes-hostile-session")

    # The mentioned colleague sees it on the mentions page, with the unread count on top.
    page.context.clear_cookies()
    dashboard_logins.sign_in(page, "admin2")
    page.goto(dashboard.base_url + "/")
    assert page.inner_text("#mentions-unread") == "1"
    page.click("text=Mentions")
    page.locator(".mention.unread").wait_for()
    assert "<img src=x onerror=alert(8)>" in page.inner_text(".mentions-list")
    assert page.locator("main img[src='x']").count() == 0
    screenshot(page, "review-notes-mentions")
    page.click(".mention.unread button[type=submit]")
    page.locator(".mention").first.wait_for()
    assert page.locator(".mention.unread").count() == 0
    assert page.locator("#mentions-unread").count() == 0
    assert ran == []
