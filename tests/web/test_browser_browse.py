"""In Debian's Chromium: log in, open the list, open a session, load more messages."""

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.web.links import session_url
from tests.support.browser import log_in, screenshot, wait_for_js

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_log_in_open_the_list_and_a_session(page, dashboard):
    page.goto(dashboard.base_url + "/")
    assert "/accounts/login/" in page.url
    log_in(page, dashboard.base_url, "support")
    assert page.url.endswith("/e/local/sessions/")
    page.wait_for_selector("table.sessions tbody tr")
    assert page.locator("table.sessions tbody tr").count() == 50
    screenshot(page, "browse-list")

    # Keyboard: j moves to the first row's link, Enter opens it.
    page.keyboard.press("j")
    focused = page.evaluate("document.activeElement.closest('tr') !== null")
    assert focused

    page.goto(dashboard.base_url + "/e/local/sessions/?source=cli&limit=200")
    page.get_by_role("link", name=ids.TOOL_TITLE).click()
    page.wait_for_selector("article.msg")
    assert page.locator("details.tool-call").count() >= 1
    screenshot(page, "browse-session")


def test_the_long_transcript_loads_more_as_you_scroll(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", ids.LONG_SESSION))
    page.wait_for_selector("article.msg")
    first = page.locator("article.msg").count()
    assert first == 100
    page.locator(".load-more").scroll_into_view_if_needed()
    wait_for_js(page, "document.querySelectorAll('article.msg').length >= 200")
    assert page.locator("article.msg").count() >= 200


def test_source_filter_updates_the_table_in_place(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "support")
    # The filter offers the sources seen on the endpoint. Other tests add sessions to
    # the shared peer, so the seeded cron sessions may be pages down: the pages that
    # show one make the list offer it.
    for offset in range(0, 2000, 200):
        page.goto(dashboard.base_url + f"/e/local/sessions/?limit=200&offset={offset}")
        if page.locator('#id_source option[value="cron"]').count():
            break
    page.goto(dashboard.base_url + "/e/local/sessions/?offset=0")
    page.select_option("#id_source", "cron")
    page.wait_for_url("**source=cron**")
    wait_for_js(
        page,
        "[...document.querySelectorAll('table.sessions tbody tr td:nth-child(3)')]"
        ".every(td => td.textContent.trim() === 'cron')",
    )
    screenshot(page, "browse-filter-cron")
