"""In Chromium: rename a title inline, fork, see the reconcile panel, browse the trail."""

import pytest

from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.changes.conftest import make_session, unique
from tests.support.browser import Logins, screenshot, wait_for_js

pytestmark = [pytest.mark.browser, pytest.mark.peer]


@pytest.fixture(scope="module")
def changes_logins(chromium, changes_dashboard):
    """One form login per person for the module: its tests need someone signed in."""
    return Logins(chromium, changes_dashboard.base_url)


@pytest.fixture
def peer_client(changes_peer):
    client = HermesClient(Endpoint("local", changes_peer.base_url, changes_peer.key))
    yield client
    client.close()


def test_rename_inline_then_fork(page, changes_dashboard, changes_logins, peer_client):
    parent = make_session(peer_client, title=unique("Browser parent"), chat="hello there")
    changes_logins.sign_in(page, "reviewer")
    page.goto(changes_dashboard.base_url + session_url("local", parent["id"]))
    page.click("#rename-link")
    field = page.locator("#rename-form #id_title")
    field.wait_for()
    assert field.input_value() == parent["title"]
    new_title = unique("Renamed inline")
    field.fill(f"  {new_title}  ")
    screenshot(page, "changes-rename-inline-form")
    field.press("Enter")
    page.wait_for_selector("#rename-form .banner-ok")
    assert page.locator("#session-title").inner_text() == new_title
    assert "/rename/" not in page.url  # it stayed on the session page
    screenshot(page, "changes-rename-inline-saved")
    assert peer_client.get_session(parent["id"]).title == new_title
    # The same forms as a page of their own, for a browser without JavaScript.
    page.goto(changes_dashboard.base_url + session_url("local", parent["id"], "session_rename"))
    assert page.locator("#close-form input[name=reason]").count() == 5
    screenshot(page, "changes-edit-page")
    page.go_back()

    page.click("#fork-link")
    page.fill("#id_fork_title", unique("Browser child"))
    page.click("#fork-form button[type=submit]")
    page.wait_for_url("**/changes/**")
    page.wait_for_selector(".side-by-side")
    assert page.locator("#outcome-h").inner_text() == "Forked"
    states = page.locator("table.checks .check").all_inner_texts()
    assert [s.lower() for s in states] == ["yes"] * 4
    screenshot(page, "changes-fork-side-by-side")
    page.click("#open-child")
    page.wait_for_selector("#session-title")
    assert "Browser child" in page.locator("#session-title").inner_text()


def test_a_duplicate_title_fork_shows_what_happened(
    page, changes_dashboard, changes_logins, peer_client
):
    taken = make_session(peer_client, title=unique("Already taken"))
    parent = make_session(peer_client, title=unique("Half fork"), chat="copy this")
    changes_logins.sign_in(page, "reviewer")
    page.goto(changes_dashboard.base_url + session_url("local", parent["id"], "session_fork"))
    page.fill("#id_child_id", unique("half-kid"))
    page.fill("#id_fork_title", taken["title"])
    page.click("#fork-form button[type=submit]")
    page.wait_for_selector("#reconcile table.checks")
    assert page.locator("#outcome-h").inner_text() == "The fork failed"
    assert "only in part" in page.locator("#verdict").inner_text()
    screenshot(page, "changes-fork-reconcile")
    # Check again re-reads in place, without leaving the page.
    page.click("text=Check again")
    page.wait_for_selector("#reconcile table.checks")


def test_create_and_the_audit_trail(page, changes_dashboard, changes_logins):
    changes_logins.sign_in(page, "admin")
    page.goto(changes_dashboard.base_url + "/")
    page.click("text=New session")
    page.fill("#id_title", unique("Created in the browser"))
    page.fill("#id_system_prompt", "You are terse.")
    screenshot(page, "changes-create-form")
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("#has-system-prompt")
    assert "has_system_prompt: true" in page.locator("#has-system-prompt").inner_text()
    assert "You are terse." not in page.content()
    screenshot(page, "changes-create-result")
    page.click("text=Audit")
    page.wait_for_selector("table.audit tbody tr")
    page.select_option("#f-cap", "session_create")
    page.wait_for_url("**capability=session_create**")
    wait_for_js(
        page,
        "[...document.querySelectorAll('table.audit tbody tr td:nth-child(3)')]"
        ".every(td => td.textContent.trim() === 'session_create')",
    )
    screenshot(page, "changes-audit-trail")


def test_a_taken_id_is_refused_in_place(page, changes_dashboard, changes_logins, peer_client):
    taken = make_session(peer_client, title=unique("Taken id"))
    changes_logins.sign_in(page, "admin")
    page.goto(changes_dashboard.base_url + "/e/local/new/")
    page.fill("#id_session_id", taken["id"])
    with page.expect_response(lambda r: r.request.method == "POST") as refused:
        page.click("#create-form button[type=submit]")
    assert refused.value.status == 409  # Hermes' conflict, passed on and swapped in
    banner = page.locator("#create-feedback .banner-error")
    banner.wait_for()
    assert "Open the existing session with that id" in banner.inner_text()
    assert page.url.endswith("/e/local/new/") and page.locator("header.topbar").count() == 1
    assert page.locator("#id_session_id").input_value() == taken["id"]  # as typed
    screenshot(page, "changes-create-taken-id")


def test_an_uncertain_create_offers_a_check_not_a_retry(page, changes_dashboard, changes_logins):
    changes_logins.sign_in(page, "reviewer")
    page.goto(changes_dashboard.base_url + "/e/dead/new/")
    page.fill("#id_session_id", unique("unanswered"))
    page.fill("#id_title", unique("Nobody home"))
    page.click("#create-form button[type=submit]")
    page.wait_for_selector("#check-link")
    assert page.locator("#outcome-h").inner_text() == "Outcome uncertain"
    # The only button is the check (a POST that reads); there is no retry.
    assert page.locator("#reconcile button").all_inner_texts() == ["Check what happened"]
    screenshot(page, "changes-uncertain-create")
    page.click("#check-link")
    page.wait_for_selector("#verdict")
    assert "Not everything could be established" in page.locator("#verdict").inner_text()
    screenshot(page, "changes-uncertain-checked")
