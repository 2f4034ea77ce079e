"""In Chromium, under the Content-Security-Policy: hostile content stays text.

The ``page`` fixture fails a test on any CSP violation (``tests/support/browser.py``);
these tests also prove that the policy is really enforced, and that the
seeded hostile session (a ``<script>`` title, an ``onerror`` image and a
``javascript:`` link in its messages) runs none of its payloads.
"""

import secrets
import time

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.support.browser import screenshot

pytestmark = [pytest.mark.browser, pytest.mark.peer]

# Any payload that runs calls one of these; the trap reports it to the test.
_PAYLOAD_TRAP = """
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = (...args) => { window.__hermesPayload(`${name}(${args.join(",")})`); };
}
"""


def _hostile_lineage(dashboard) -> tuple[str, str]:
    """A parent and its fork on the peer, with hostile titles and a hostile message."""
    client = HermesClient(
        Endpoint("local", dashboard.env["HERMES_API_URL"], dashboard.env["HERMES_API_KEY"])
    )
    try:
        tag = secrets.token_hex(3)
        parent = client.create_session(
            idempotency_key=mint_key(),
            session_id=f"hostile-{tag}",
            title=f"<script>alert(4)</script> {tag}",
        ).id
        client.chat(parent, message="<img src=x onerror=alert(6)> [x](javascript:alert(7))")
        child = client.fork_session(
            parent,
            idempotency_key=mint_key(),
            child_id=f"hostile-kid-{tag}",
            title=f"<img src=x onerror=alert(5)> {tag}",
        ).id
    finally:
        client.close()
    return parent, child


def _wait_for(condition, timeout=10.0):
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.05)


def test_the_policy_blocks_inline_code_and_the_tests_see_it(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "support")
    answer = page.goto(dashboard.base_url + "/e/local/sessions/")
    assert "script-src 'self'" in answer.headers["content-security-policy"]
    page.evaluate(
        """() => {
          window.__ran = 0;
          const box = document.createElement("div");
          box.innerHTML = '<img src="/static/none.png" onerror="window.__ran = 1">';
          document.body.append(box);
          const script = document.createElement("script");
          script.textContent = "window.__ran = 2";
          document.body.append(script);
          document.body.lastElementChild.setAttribute("style", "color: red");
        }"""
    )
    violations = page.context.csp_violations
    _wait_for(lambda: any("script-src" in v for v in violations) and len(violations) >= 3)
    assert page.evaluate("window.__ran") == 0
    assert any("style-src" in v for v in violations)
    violations.clear()  # expected here; the fixture fails on any other


def test_hostile_content_runs_no_payload_and_breaks_no_policy(page, dashboard, dashboard_logins):
    ran: list[str] = []
    page.context.expose_binding("__hermesPayload", lambda _source, text: ran.append(text))
    page.context.add_init_script(_PAYLOAD_TRAP)
    page.on("dialog", lambda dialog: (ran.append(f"dialog {dialog.message}"), dialog.dismiss()))
    parent, child = _hostile_lineage(dashboard)
    dashboard.manage("index_sync")  # the lineage graph draws both hostile titles in its SVG
    dashboard_logins.sign_in(page, "admin")

    pages = [
        "/e/local/sessions/?limit=200",
        "/e/local/sessions/?children=1&limit=200",
        session_url("local", ids.XSS_TITLE_SESSION),
        session_url("local", ids.XSS_TITLE_SESSION, "lineage_page"),
        session_url("local", parent),
        session_url("local", child),
        "/e/local/sessions/?q=script",
        "/audit/",
        "/deletions/",
    ]
    for url in pages:
        answer = page.goto(dashboard.base_url + url)
        assert answer.status == 200, url
        assert "default-src 'self'" in answer.headers["content-security-policy"].split("; ")
        page.wait_for_load_state("networkidle")
        assert page.locator("a[href^='javascript:' i]").count() == 0, url

    page.goto(dashboard.base_url + session_url("local", parent, "lineage_page"))
    drawing = page.locator("#lineage-graph .svg-wrap svg")
    drawing.wait_for()
    assert drawing.locator("g.node").count() == 2
    assert "<script>alert(4)" in drawing.text_content()  # the titles, as SVG text
    assert "<img src=x onerror=alert(5)>" in drawing.text_content()
    assert page.locator("#lineage-graph svg script, #lineage-graph img").count() == 0
    screenshot(page, "hostile-lineage-under-csp")

    page.goto(dashboard.base_url + session_url("local", ids.XSS_TITLE_SESSION))
    page.wait_for_selector("article.msg")
    body = page.inner_text("main")
    assert "<script>alert(1)</script>" in body  # shown as text
    assert "<img src=x onerror=alert(1)>" in body
    assert page.locator("main img[src='x']").count() == 0
    assert page.locator("main script:not([src])").count() == 0
    screenshot(page, "hostile-session-under-csp")
    assert ran == []
    assert page.context.csp_violations == []
