"""The Sessions page in Chromium: its keys on both lists, and the way between them."""

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_slash_focuses_the_search_box_and_hermes_list_is_one_link_away(
    page, dashboard, dashboard_logins
):
    dashboard.manage("index_sync")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + "/e/local/sessions/")
    page.wait_for_selector("#title-matches tbody tr")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "id_q"
    page.evaluate("document.activeElement.blur()")
    page.keyboard.press("j")  # the rows keep their keyboard use
    assert page.evaluate("document.activeElement.closest('tr') !== null")

    page.click("#hermes-list-link")
    page.wait_for_url("**/e/local/sessions/?offset=0")
    assert page.locator("#index-filters").count() == 0
    page.keyboard.press("/")  # no search box here: the id box
    assert page.evaluate("document.activeElement.id") == "goto-id"
