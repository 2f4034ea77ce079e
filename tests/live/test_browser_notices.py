"""In Chromium, two people at once: what one does on the dashboard reaches the other's open page.

A deletion request filed by support shows on the admin's open deletion queue; the admin's
approval shows on support's own queue; a review completed by the admin moves the progress
on the reviewer's open queue page. None of them reloads.
"""

from __future__ import annotations

import re

import pytest

from hermes_ui.platform.endpoints import Endpoint
from tests.support.browser import (
    assert_no_csp_violations,
    screenshot,
    wait_for_js,
    watched_context,
)
from tests.support.peers import make

pytestmark = [pytest.mark.browser, pytest.mark.peer]
HOSTILE = '<img src=x onerror="window.__pwned=1">Hostile'

QUEUE_CODE = """
from django.contrib.auth import get_user_model
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review.models import Item, Queue, Rubric
scope = get_endpoint("local").scope()
queue = Queue.objects.create(**scope, name="live-queue", reviews_needed=1,
    rubric=Rubric.objects.get(is_default=True),
    owner=get_user_model().objects.get(username="reviewer"))
for sid in ("live-review-1", "live-review-2"):
    Item.objects.create(**scope, queue=queue, session_id=sid)
print(queue.pk)
"""

# The deletion queue's timed refresh is triggered (as the tab becoming visible does):
# how many requests htmx sent for it.
TIMED_REFRESH = """(() => {
  let sent = 0;
  const count = () => { sent += 1; };
  document.body.addEventListener("htmx:beforeSend", count);
  document.dispatchEvent(new Event("visibilitychange"));
  document.body.removeEventListener("htmx:beforeSend", count);
  return sent;
})()"""


def _person(chromium, logins, name: str, init: str = ""):
    """A context of its own, signed in as ``name``; the caller opens its page."""
    context = watched_context(chromium, viewport={"width": 1300, "height": 900})
    if init:
        context.add_init_script(init)
    page = context.new_page()
    logins.sign_in(page, name)
    return context, page


def _following(page) -> None:
    """The page's notice stream is open (the region shows once live_notices.js runs)."""
    wait_for_js(page, "document.getElementById('live-notices').dataset.liveOpen", timeout=5)


def test_a_deletion_request_reaches_the_admins_open_queue(
    chromium, live_dashboard, live_logins, live_peer
):
    base = live_dashboard.base_url
    make(
        Endpoint("local", live_peer.base_url, live_peer.key),
        "live-delete-me",
        title=f"{HOSTILE} live-delete-me",
    )
    support_ctx, support = _person(chromium, live_logins, "support")
    admin_ctx, admin = _person(chromium, live_logins, "admin")
    try:
        admin.goto(base + "/deletions/")
        _following(admin)
        support.goto(base + "/deletions/")
        _following(support)

        # Support files a request in their own tab.
        filing = support_ctx.new_page()
        filing.goto(base + "/e/local/deletions/new/?session=live-delete-me")
        filing.fill("#id_reason", HOSTILE + " asked to be forgotten")
        filing.get_by_role("button", name="Request deletion").click()
        filing.wait_for_selector("#case[data-status=pending]")
        pk = int(re.search(r"/deletions/(\d+)/", filing.url).group(1))

        # The admin's open queue shows it within 5 s, redrawn in place by the notice.
        wait_for_js(admin, "document.getElementById('live-notices').dataset.liveRedraws", 5)
        # The row is swapped in before htmx settles it; the notice's mark comes at settle.
        admin.wait_for_selector(f"#deletion-{pk}.live-changed[data-status=pending]", timeout=5000)
        assert admin.locator(f"#deletion-{pk}").get_attribute("class") == "live-changed"
        assert admin.url == base + "/deletions/"  # no reload
        assert admin.evaluate("window.__pwned") is None
        screenshot(admin, "live-deletion-queue")
        # Support's own queue shows their request too.
        support.wait_for_selector(f"#deletion-{pk}[data-status=pending]", timeout=5000)

        # The admin approves; support's open queue follows (it is their request).
        admin.goto(base + f"/deletions/{pk}/")
        admin.select_option("#id_policy_rule", "owner_request")
        admin.fill("#id_comment", "Checked.")
        admin.click("#approve")
        admin.wait_for_selector("#case[data-status=approved]")
        support.wait_for_selector(f"#deletion-{pk}[data-status=approved]", timeout=5000)
        assert support.locator("#live-notices").get_attribute("data-live-redraws") == "2"
        # While the stream is open the queue's timed refresh stays off (a trigger of it
        # sends nothing); a browser without EventSource refreshes as before.
        assert support.evaluate(TIMED_REFRESH) == 0
        plain_ctx, plain = _person(
            chromium, live_logins, "support", init="delete window.EventSource;"
        )
        plain.goto(base + "/deletions/")
        plain.wait_for_selector(f"#deletion-{pk}")
        assert plain.locator("#live-notices").is_hidden()
        assert plain.evaluate(TIMED_REFRESH) == 1
        plain_ctx.close()
    finally:
        for context in (support_ctx, admin_ctx):
            context.close()
            assert_no_csp_violations(context)


def test_a_review_completed_elsewhere_moves_the_open_queue_pages_progress(
    chromium, live_dashboard, live_logins, live_peer
):
    base = live_dashboard.base_url
    endpoint = Endpoint("local", live_peer.base_url, live_peer.key)
    for session_id in ("live-review-1", "live-review-2"):
        make(endpoint, session_id, title=f"{HOSTILE} {session_id}", chat=True)
    queue_id = _queue_id(live_dashboard)
    queue_url = f"{base}/e/local/review/{queue_id}/"
    reviewer_ctx, reviewer = _person(chromium, live_logins, "reviewer")
    admin_ctx, admin = _person(chromium, live_logins, "admin")
    try:
        reviewer.goto(queue_url)
        _following(reviewer)
        assert "0 completed" in reviewer.locator("#queue-progress").inner_text()
        admin.goto(queue_url + "next/")
        admin.wait_for_selector("#rv-complete")
        item_id = int(re.search(r"/items/(\d+)/", admin.url).group(1))
        with admin.expect_navigation():
            admin.click("#rv-complete")
        wait_for_js(
            reviewer,
            "document.querySelector('#queue-progress [data-state=completed]')"
            ".textContent.startsWith('1 completed')",
            timeout=5,
        )
        progress = reviewer.locator("#queue-progress progress")
        assert progress.get_attribute("value") == "1" and progress.get_attribute("max") == "2"
        row = reviewer.locator(f'#queue-items tr[data-item="{item_id}"]')
        assert "\tcompleted\t" in row.inner_text()
        assert reviewer.evaluate("window.__pwned") is None
        screenshot(reviewer, "live-review-queue")
        # The edit form was not redrawn (what the reader typed there stays).
        assert reviewer.locator("#queue-form").count() == 1
    finally:
        for context in (reviewer_ctx, admin_ctx):
            context.close()
            assert_no_csp_violations(context)


def _queue_id(server) -> int:
    import subprocess
    import sys

    from tests.support.browser import REPO

    done = subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "shell", "-c", QUEUE_CODE],
        env=server.env,
        check=True,
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    return int(done.stdout.strip().splitlines()[-1])
