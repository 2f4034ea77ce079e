"""In Chromium: tags, the saved views bar and "new" marks on the index, screenshotted.

A reviewer tags sessions on their pages (htmx swaps the region), saves a
view from the bar, and sees a colleague's turn marked "new" after the index
syncs. Names are hostile; the page fails on any CSP violation, and the
payload trap on any script that runs.
"""

import secrets

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.support.browser import screenshot
from tests.support.waiting import until

pytestmark = [pytest.mark.browser, pytest.mark.peer]
_TRAP = 'for (const n of ["alert", "confirm", "prompt"]) { window[n] = () => window.__ran(n); }'


def _hermes(dashboard) -> HermesClient:
    return HermesClient(
        Endpoint("local", dashboard.env["HERMES_API_URL"], dashboard.env["HERMES_API_KEY"])
    )


def test_tags_views_and_new_marks_in_the_index(page, dashboard, dashboard_logins):
    ran: list[str] = []
    page.context.expose_binding("__ran", lambda _source, name: ran.append(name))
    page.context.add_init_script(_TRAP)
    suffix = secrets.token_hex(3)
    hostile, plain = f"<img src=x onerror=alert(1)> {suffix}", f"follow-up-{suffix}"
    hermes = _hermes(dashboard)
    sid = f"triage-ui-{suffix}"
    hermes.create_session(idempotency_key=mint_key(), session_id=sid, title=f"Watched {suffix}")
    hermes.chat(sid, message="first question")
    dashboard.manage("index_sync")

    dashboard_logins.sign_in(page, "admin")
    for name, colour in ((hostile, "red"), (plain, "blue")):
        page.goto(dashboard.base_url + "/tags/")
        page.fill("#id_name", name)
        page.select_option("#id_colour", colour)
        page.click("#new-tag-form button[type=submit]")
        page.wait_for_selector("#tag-table")
    assert page.locator("#tag-table .badge-kind-tag", has_text=hostile).count() == 1
    screenshot(page, "triage-tag-list")

    for session_id in (sid, ids.TOOL_SESSION):
        page.goto(dashboard.base_url + session_url("local", session_id))
        page.click("#panel-tags > summary")  # a side panel of the page, closed at first
        for name in (hostile, plain):
            page.select_option("#id_add_tag", label=name)
            page.click("#session-tags .tag-add button[type=submit]")  # htmx swaps the region
            page.locator("#session-tags .badge-kind-tag", has_text=name).wait_for()
        assert page.url.endswith(session_url("local", session_id))  # no navigation: a swap
    screenshot(page, "triage-session-tags")

    # A colleague continues the session the admin has just opened: new after a sync.
    hermes.chat(sid, message="a colleague's follow-up")
    hermes.close()
    dashboard.manage("index_sync")

    page.goto(dashboard.base_url + "/e/local/sessions/?q=" + f"tag:{plain}")
    page.click("#views-bar details summary")
    page.fill("#id_save_name", f"<b>Follow-ups</b> {suffix}")
    page.check("#id_save_shared")
    page.click("#save-view-form button[type=submit]")
    page.wait_for_selector("#title-matches")
    bar = page.locator("#views-bar")
    current = bar.locator("a[aria-current=page]")
    assert current.inner_text() == f"<b>Follow-ups</b> {suffix}"  # the name, as text
    assert bar.locator("b").count() == 0
    for builtin in ("All sessions", "Closed with errors", "New since I looked"):
        assert bar.get_by_text(builtin).count() == 1
    assert page.locator("#title-matches tbody tr").count() == 2
    row = page.locator("#title-matches tbody tr", has_text=f"Watched {suffix}")
    assert row.locator(".badge-kind-new").inner_text() == "new 2"
    assert row.locator(".badge-kind-tag", has_text=hostile).count() == 1
    assert page.locator("main img[src='x']").count() == 0
    screenshot(page, "triage-index-tags-views-new")

    bar.get_by_text("New since I looked").click()
    page.wait_for_selector("#title-matches")
    assert page.locator("#title-matches tbody tr").count() == 1
    page.goto(dashboard.base_url + session_url("local", sid))

    def looked():
        # The watermark moves after the session page's answer is sent (``web.after_response``),
        # so the next page may be read before it lands: look again until it has.
        page.goto(dashboard.base_url + "/e/local/sessions/?q=new%3Ayes")
        return "0 matching sessions" in page.inner_text("#title-matches")

    until(looked, 15, "opening the session did not take it out of new:yes")
    page.goto(dashboard.base_url + "/e/local/views/")
    table = page.locator("#views-table")
    assert table.get_by_text(f"<b>Follow-ups</b> {suffix}", exact=True).count() == 1
    screenshot(page, "triage-views-page")
    assert ran == []
