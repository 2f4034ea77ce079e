"""In Chromium, two people: support asks for a deletion, admin reviews and executes it.

Runs on its own dashboard over a freshly seeded peer, because it really
deletes the seeded delegate lineage. Screenshots go to test-artifacts/.
"""

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.web.links import session_url
from tests.support.browser import (
    DashboardServer,
    assert_no_csp_violations,
    log_in,
    screenshot,
    watched_context,
)

pytestmark = [pytest.mark.browser, pytest.mark.peer]


@pytest.fixture
def fresh_dashboard(tmp_path, fresh_peer):
    server = DashboardServer(tmp_path / "ui-data", fresh_peer).start()
    yield server
    server.stop()


def _person(chromium, dashboard, name):
    context = watched_context(chromium, viewport={"width": 1300, "height": 900})
    tab = context.new_page()
    log_in(tab, dashboard.base_url, name)
    return context, tab


def test_request_approve_execute_with_two_logins(chromium, fresh_dashboard, fresh_peer):
    base = fresh_dashboard.base_url
    support_ctx, support = _person(chromium, fresh_dashboard, "support")
    admin_ctx, admin = _person(chromium, fresh_dashboard, "admin")
    try:
        # Support: from the session page to a recorded request.
        support.goto(base + session_url("local", ids.DELEGATE_PARENT))
        screenshot(support, "deletion-0-session-page")
        support.click("#deletion-request")
        support.wait_for_selector("#request-form")
        # A blank reason is refused with a 400 that htmx swaps into the form, in place.
        support.fill("#id_reason", "   ")
        with support.expect_response(lambda r: r.request.method == "POST") as refused:
            support.get_by_role("button", name="Request deletion").click()
        assert refused.value.status == 400
        support.wait_for_selector("#request-form #reason-error")
        assert "/deletions/new/" in support.url  # still on the form's page
        assert support.locator("header.topbar").count() == 1  # the form, not a page in a page
        screenshot(support, "deletion-1-blank-reason-400")
        support.fill("#id_reason", "The customer asked us to erase this research thread.")
        screenshot(support, "deletion-1-request-form")
        support.get_by_role("button", name="Request deletion").click()
        support.wait_for_selector("#case[data-status=pending]")
        assert support.locator("#cascade li").count() == 3
        assert ids.DELEGATE_BRANCH in support.locator("#survivors").inner_text()
        screenshot(support, "deletion-2-pending-as-support")
        support.goto(base + "/deletions/")
        support.wait_for_selector("tr[data-status=pending]")

        # Admin: the queue, the review form, the approval.
        admin.goto(base + "/deletions/")
        admin.wait_for_selector("tr[data-status=pending]")
        screenshot(admin, "deletion-3-queue-as-admin")
        admin.locator("tr[data-status=pending] a").first.click()
        admin.wait_for_selector("#decision-form")
        assert "still matches this snapshot" in admin.locator("#live-check").inner_text()
        admin.select_option("#id_policy_rule", "owner_request")
        admin.fill("#id_comment", "Ticket checked; the branch stays.")
        screenshot(admin, "deletion-4-review")
        admin.click("#approve")
        admin.wait_for_selector("#case[data-status=approved] #execute")
        screenshot(admin, "deletion-5-approved")

        # Support's queue updates by itself (htmx polling), no reload.
        support.wait_for_selector("tr[data-status=approved]", timeout=15_000)
        screenshot(support, "deletion-6-queue-updated-as-support")

        # Admin executes; the result is verified against Hermes.
        admin.click("#execute")
        admin.wait_for_selector("#case[data-status=executed] #result", timeout=30_000)
        assert admin.locator("#deleted li").count() == 4
        assert admin.locator("#deleted .check.good").count() == 4
        assert "a root now" in admin.locator("#survived").inner_text()
        assert "request_dump_*" in admin.locator("#result").inner_text()
        screenshot(admin, "deletion-7-result")
    finally:
        support_ctx.close()
        admin_ctx.close()
    assert_no_csp_violations(support_ctx)
    assert_no_csp_violations(admin_ctx)

    hermes = hermes_for(fresh_peer)
    with pytest.raises(e.NotFound):
        hermes.get_session(ids.DELEGATE_GRANDCHILD)
    assert hermes.get_session(ids.DELEGATE_BRANCH).parent_id is None


def hermes_for(peer) -> HermesClient:
    from hermes_ui.platform.endpoints import Endpoint

    return HermesClient(Endpoint("local", peer.base_url, peer.key))
