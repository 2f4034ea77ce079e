"""In Chromium: the compare page of two sibling branches, screenshotted for review."""

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.web.links import compare_url
from tests.support.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_compare_two_sibling_branches(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "reviewer")
    page.goto(dashboard.base_url + compare_url("local", ids.BRANCH_A, ids.BRANCH_B))
    page.wait_for_selector("#deltas")
    assert page.locator("#side-a h2").inner_text().endswith(ids.BRANCH_A_TITLE)
    assert page.locator("#side-b h2").inner_text().endswith(ids.BRANCH_B_TITLE)
    assert page.locator(".cmp-row[role=row]").count() >= 2
    assert page.locator("#shared summary").is_visible()
    # The two columns sit side by side at this width.
    a_box = page.locator("#side-a").bounding_box()
    b_box = page.locator("#side-b").bounding_box()
    assert b_box["x"] > a_box["x"] + a_box["width"] - 1
    assert page.locator("#verdict-form").is_visible()
    screenshot(page, "compare-branches")
