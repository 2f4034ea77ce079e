"""In Debian's Chromium: an unknown name:value leaves a visible note with the results,
a typo of a filter an error in the page (the search box stays to correct it)."""

import re

import pytest

from tests.support.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_the_note_and_the_typo_are_shown_in_the_page(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + "/e/local/sessions/?q=error:timeout")
    note = page.locator("#search-notes")
    assert note.is_visible()
    assert "error is not a filter; searched error:timeout as words." in note.inner_text()
    screenshot(page, "search-unknown-filter-note")
    note.get_by_role("link", name="The search syntax").click()
    page.wait_for_url(re.compile(r"/e/local/sessions/#search-syntax$"))

    answer = page.goto(dashboard.base_url + "/e/local/sessions/?q=sorce:cli")
    assert answer.status == 400
    banner = page.locator("#results .banner-error")
    assert "did you mean \u201csource:\u201d?" in banner.inner_text()
    assert page.locator("#id_q").input_value() == "sorce:cli"
    screenshot(page, "search-filter-typo")
