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


RUNNING = (
    "from django.utils import timezone\n"
    "from hermes_ui.index.models import IndexSyncState\n"
    "from hermes_ui.index.sync_state import state_for\n"
    "from hermes_ui.platform.endpoints import get_endpoint\n"
    "state_for(get_endpoint('local'))\n"
    "IndexSyncState.objects.update(running_since=timezone.now())\n"
)
BUILT = (  # the list sweep alone: the banner needs no transcript read
    "from django.conf import settings\n"
    "settings.HERMES_INDEX_CONTENT = False\n"
    "from hermes_ui.index import sync\n"
    "from hermes_ui.index.models import IndexSyncState\n"
    "from hermes_ui.platform.endpoints import get_endpoint\n"
    "IndexSyncState.objects.update(running_since=None)\n"
    "assert not sync.sync(get_endpoint('local'), full=True).error_code\n"
)


def test_hermes_list_says_when_the_first_index_is_built(chromium, hermes_peer, tmp_path):
    """A server of its own, whose index nobody builds but the test: the page opens on
    Hermes' list while the first index "runs", and its banner turns into a link to the
    search when the index is built, without a reload."""
    from tests.support.browser import DashboardServer, Logins, screenshot, watched_context

    server = DashboardServer(tmp_path, hermes_peer, task_worker=False).start()
    try:
        server.manage("shell", "-c", RUNNING)
        context = watched_context(chromium, viewport={"width": 1280, "height": 800})
        page = context.new_page()
        Logins(chromium, server.base_url).sign_in(page, "support")
        page.goto(server.base_url + "/e/local/sessions/")
        banner = page.locator("#index-not-built")
        assert "still being built" in banner.inner_text()
        page.wait_for_selector("#index-freshness[hx-trigger]")  # polling
        server.manage("shell", "-c", BUILT)
        page.wait_for_selector("#index-built-link", timeout=15_000)
        assert "is built" in banner.inner_text()
        screenshot(page, "sessions-first-index-built")
        page.focus("#index-built-link")
        page.keyboard.press("Enter")
        page.wait_for_selector("#index-filters")
        assert page.url == server.base_url + "/e/local/sessions/"
        context.close()
    finally:
        server.stop()
