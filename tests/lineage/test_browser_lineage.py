"""In Chromium: the index fills itself, the lazy panel draws, a node link navigates."""

import re
import time

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.web.links import session_url
from tests.support.browser import DashboardServer, log_in, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.peer]
# Case-sensitive: "Not indexed yet" must not count as indexed.
INDEXED = re.compile(r"\bIndexed\b")


@pytest.fixture(scope="module")
def refreshing_dashboard(tmp_path_factory, hermes_peer):
    """Its own uvicorn app, with the periodic worker syncing on a short interval."""
    server = DashboardServer(
        tmp_path_factory.mktemp("lineage-ui"),
        hermes_peer,
        extra_env={"HERMES_INDEX_REFRESH_SECONDS": "2"},
        refresher=True,
    ).start()
    yield server
    server.stop()


def wait_until_indexed(page, base_url):
    deadline = time.monotonic() + 45
    while time.monotonic() < deadline:
        page.goto(base_url + "/e/local/sessions/")
        if page.locator("#index-freshness", has_text=INDEXED).count():
            return
        time.sleep(0.5)
    raise AssertionError("the background refresher never indexed the endpoint")


def test_the_panel_draws_the_lineage_and_a_node_opens_its_session(page, refreshing_dashboard):
    base = refreshing_dashboard.base_url
    log_in(page, base, "support")
    # Only the periodic worker syncs; nothing else does.
    wait_until_indexed(page, base)
    assert page.locator("table.sessions tbody tr").count() == 50
    screenshot(page, "lineage-index")

    page.goto(base + session_url("local", ids.COMPRESSION_ROOT))
    # The panel is a closed side panel of the session page; it loads once opened
    # (hx-trigger="revealed", held back while the panel is closed: static/js/session.js).
    page.click("#panel-lineage > summary")
    panel_svg = page.locator("#lineage-panel .svg-wrap svg")
    panel_svg.wait_for(timeout=15000)
    assert page.locator("#lineage-panel .svg-wrap svg g.node").count() == 3
    assert page.locator("#lineage-resume").is_visible()
    page.locator("#lineage-panel").scroll_into_view_if_needed()
    screenshot(page, "lineage-panel")

    page.locator("#lineage-panel .svg-wrap svg a").filter(
        has_text=ids.COMPRESSION_TIP_TITLE
    ).click()
    page.wait_for_url("**" + session_url("local", ids.COMPRESSION_TIP))
    assert page.locator("h1").inner_text().startswith(ids.COMPRESSION_TIP_TITLE)
    screenshot(page, "lineage-after-click")


def test_the_graph_page_and_the_refresh_button(page, refreshing_dashboard):
    base = refreshing_dashboard.base_url
    log_in(page, base, "reviewer")
    wait_until_indexed(page, base)
    page.goto(base + session_url("local", ids.DELEGATE_GRANDCHILD, "lineage_page"))
    page.locator("#lineage-graph .svg-wrap svg").wait_for()
    assert page.locator("#lineage-graph .svg-wrap svg g.node").count() == 5
    screenshot(page, "lineage-delegates")
    page.get_by_role("button", name="Refresh").click()
    page.locator("#index-freshness", has_text=INDEXED).wait_for(timeout=20000)
    assert page.locator("#lineage-graph .svg-wrap svg g.node").count() == 5
    page.goto(base + session_url("local", ids.BRANCH_B, "lineage_page"))
    page.locator("#lineage-graph .svg-wrap svg").wait_for()
    page.keyboard.press("Tab")
    screenshot(page, "lineage-branches")


def test_a_word_search_loads_its_title_table_when_scrolled_to(page, refreshing_dashboard):
    base = refreshing_dashboard.base_url
    log_in(page, base, "support")
    wait_until_indexed(page, base)
    page.goto(base + "/e/local/sessions/?q=trip+planning")
    page.locator("#content-results").wait_for()
    # Scroll as a person would; on a tall window the region may already be in
    # view and swapped (its element replaced), so no locator is held across it.
    page.mouse.wheel(0, 20000)
    parent_box = page.locator(f'#bulk-form input[name="ids"][value="{ids.BRANCH_PARENT}"]')
    parent_box.wait_for(timeout=15000)  # htmx swapped the table in
    assert page.locator("#title-matches a[href*='table=on']").count() == 0
    parent_box.check()  # the selection form it brings works as before
    page.locator("#bulk-close").click()
    page.wait_for_url("**/bulk/**")
    assert ids.BRANCH_PARENT in page.content()
