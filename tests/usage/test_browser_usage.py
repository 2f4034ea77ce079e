"""In Chromium: the usage page after two syncs around a chat turn, and lineage totals."""

import uuid

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.support.browser import screenshot
from tests.support.peers import make

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_the_usage_page_draws_history_and_synced_bars_with_the_table(
    page, dashboard, dashboard_logins, hermes_peer
):
    ep = Endpoint("local", hermes_peer.base_url, hermes_peer.key)
    sid = f"usage-browser-{uuid.uuid4().hex[:8]}"
    make(ep, sid)
    dashboard.manage("index_sync", "--full")
    client = HermesClient(ep)
    try:
        client.chat(sid, message="Count my tokens, please.")
    finally:
        client.close()
    dashboard.manage("index_sync")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + "/e/local/usage/?days=90")
    page.wait_for_selector("#usage-table")
    kinds = page.locator("#usage-table tbody td:nth-child(3)").all_inner_texts()
    assert "history" in kinds and "synced" in kinds
    chart = page.locator("#usage-chart > svg")
    assert chart.get_attribute("role") == "img"
    assert page.locator("#usage-chart > svg rect[fill='url(#hatch)']").count() >= 1
    box = chart.bounding_box()
    assert box["width"] > 600 and box["height"] > 150  # drawn at a readable size
    # The range form works with the keyboard: choose 7 days and submit.
    page.select_option("#id_days", "7")
    page.locator("#usage-form button[type=submit]").press("Enter")
    page.wait_for_url(lambda url: "days=7" in url)
    page.wait_for_selector("#usage-table")
    screenshot(page, "usage-page")


def test_the_lineage_page_shows_the_tree_total(page, dashboard, dashboard_logins):
    dashboard.manage("index_sync", "--full")
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", ids.DELEGATE_PARENT, "lineage_page"))
    page.wait_for_selector("#tree-total")
    assert "5 sessions:" in page.locator("#tree-total").inner_text()
    screenshot(page, "usage-lineage-totals")
