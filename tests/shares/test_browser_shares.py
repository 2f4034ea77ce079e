"""In Chromium, the whole journey of share links against the real peer.

Support shares a session inside; a colleague opens it, a person without the
endpoint gets 404. An outside link stays shut until a second admin approves it,
then opens in a fresh browser without a session (and without JavaScript);
revoking it ends it (410), and so does expiry. Hostile title and messages stay text, the planted
e-mail address and API key are masked, and no page breaks the CSP. With
``HERMES_UI_SCREENSHOTS=docs/images`` the docs' pictures are written there.
"""

import io
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web.links import session_url
from tests.support.browser import (
    ARTIFACTS,
    PASSWORD,
    REPO,
    DashboardServer,
    assert_no_csp_violations,
    log_in,
    screenshot,
    watched_context,
)

pytestmark = [pytest.mark.browser, pytest.mark.peer]
OUT = os.environ.get("HERMES_UI_SCREENSHOTS")
EMAIL = "mira.customer@example.org"
API_KEY = "sk-live-Zq8vN3xR5tY7uW9aB1cD2eF4gH6"
# Any payload that runs calls one of these; the trap reports it to the test.
_PAYLOAD_TRAP = """
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = (...args) => { window.__hermesPayload(`${name}(${args.join(",")})`); };
}
"""
_MORE_PEOPLE = f"""
from django.contrib.auth import get_user_model
from django.core.management import call_command
call_command("create_user", "share-colleague", role="support", password={PASSWORD!r})
get_user_model().objects.create_user("share-stranger", password={PASSWORD!r})
"""


_EXPIRE_ALL = """
from datetime import timedelta
from django.utils import timezone
from hermes_ui.shares.models import Share
Share.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
"""


@pytest.fixture(scope="module")
def sharing_dashboard(tmp_path_factory, hermes_peer):
    """Outside links need ``HERMES_UI_SHARING=outside``, read when the server starts.
    The two more people are added while it starts (one Django start less to wait for)."""
    server = DashboardServer(
        tmp_path_factory.mktemp("shares-ui"), hermes_peer, {"HERMES_UI_SHARING": "outside"}
    )
    server.prepare()
    people = subprocess.Popen(
        [sys.executable, str(REPO / "manage.py"), "shell", "-c", _MORE_PEOPLE],
        env=server.env,
        cwd=REPO,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        server.start(prepare=False)
    finally:
        _, problem = people.communicate(timeout=60)
    assert people.returncode == 0, problem.decode()[-2000:]
    yield server
    server.stop()


def _shot(page, name: str, *, full: bool = True) -> None:
    """A picture for the docs (``HERMES_UI_SCREENSHOTS``) or test-artifacts/."""
    from PIL import Image

    target = (REPO / OUT if OUT else ARTIFACTS) / f"{name}.png"
    Path(target).parent.mkdir(parents=True, exist_ok=True)
    image = Image.open(io.BytesIO(page.screenshot(full_page=full))).convert("RGB")
    image.quantize(colors=256, method=Image.Quantize.MEDIANCUT).save(target, optimize=True)


def _hostile_session(server) -> str:
    client = HermesClient(
        Endpoint("local", server.env["HERMES_API_URL"], server.env["HERMES_API_KEY"])
    )
    try:
        sid = client.create_session(
            idempotency_key=mint_key(),
            session_id=f"share-{secrets.token_hex(3)}",
            title="<script>alert(11)</script> Refund for order 4711",
        ).id
        client.chat(
            sid,
            message=f"Hi, I am {EMAIL}; my key is {API_KEY}. "
            "<img src=x onerror=alert(12)> [x](javascript:alert(13))",
        )
    finally:
        client.close()
    return sid


def _person(chromium, server, name, ran, **options):
    options.setdefault("viewport", {"width": 1280, "height": 900})
    context = watched_context(chromium, **options)
    context.expose_binding("__hermesPayload", lambda _source, text: ran.append(text))
    context.add_init_script(_PAYLOAD_TRAP)
    tab = context.new_page()
    tab.on("dialog", lambda dialog: (ran.append(f"dialog {dialog.message}"), dialog.dismiss()))
    if name:
        log_in(tab, server.base_url, name)
    return context, tab


def _share(tab, base: str, sid: str, kind: str, artifact: str = "") -> str:
    tab.goto(base + session_url("local", sid))
    if artifact:
        screenshot(tab, artifact)  # the session page with its Share action
    tab.click("#share-session")
    tab.wait_for_selector("#share-preview")
    preview = tab.inner_text("#share-preview")
    assert "[redacted:email]" in preview and "[redacted:api-key]" in preview
    assert EMAIL not in preview and API_KEY not in preview
    tab.check(f"input[name=kind][value={kind}]")
    tab.click("#share-create")
    tab.wait_for_selector("#share-url")
    return tab.input_value("#share-url")


def test_inside_and_outside_links_from_share_to_revocation(chromium, sharing_dashboard):
    base = sharing_dashboard.base_url
    sid = _hostile_session(sharing_dashboard)
    ran: list[str] = []
    contexts = []

    def person(name, **options):
        context, tab = _person(chromium, sharing_dashboard, name, ran, **options)
        contexts.append(context)
        return tab

    try:
        support = person("support")
        inside = _share(support, base, sid, "inside", artifact="sharing-0-session-page")
        _shot(support, "sharing-link-made")

        # A colleague on the same endpoint opens it, on a phone.
        colleague = person("share-colleague", viewport={"width": 390, "height": 844})
        answer = colleague.goto(inside)
        assert answer.status == 200 and answer.headers["referrer-policy"] == "no-referrer"
        assert answer.headers["x-robots-tag"].startswith("noindex")
        text = colleague.inner_text("main")
        assert "<script>alert(11)</script>" in text and "<img src=x onerror=alert(12)>" in text
        assert "[redacted:email]" in text and EMAIL not in text and API_KEY not in text
        assert "Shared by\nsupport" in text or "support" in colleague.inner_text("#share-by")
        assert colleague.locator("a, form, script, img").count() == 0  # nothing leads back
        width = colleague.evaluate("document.documentElement.scrollWidth")
        assert width <= 390, f"the page scrolls sideways on a phone: {width}px"
        _shot(colleague, "sharing-page-phone")

        # A person without that endpoint gets the 404 of a link that does not exist.
        stranger = person("share-stranger")
        assert stranger.goto(inside).status == 404
        assert stranger.goto(base + "/s/" + "x" * 43 + "/").status == 404

        # Outside: shut until a second admin approves it.
        outside = _share(support, base, sid, "outside")
        assert support.locator("#share-pending").count() == 1
        nobody = person(None)
        assert nobody.goto(outside).status == 404
        admin = person("admin")
        admin.goto(base + "/shares/")
        row = admin.locator("#share-table tr[data-state=pending]")
        assert row.count() == 1
        _shot(admin, "sharing-list-approve")
        row.locator("button.approve-share").click()
        admin.wait_for_selector("#share-table tr[data-state=pending]", state="detached")

        # A fresh browser with no session, and no JavaScript at all, opens it now.
        fresh = person(None, java_script_enabled=False)
        answer = fresh.goto(outside)
        assert answer.status == 200 and answer.headers["cache-control"] == "no-store"
        assert "[redacted:api-key]" in fresh.inner_text("main")
        _shot(fresh, "sharing-page-outside")

        # The sharer revokes it: it ends at once, with a plain 410 page.
        support.goto(base + "/shares/")
        support.locator("#share-table tr[data-kind=outside] button.revoke-share").click()
        support.wait_for_selector("#share-table tr[data-kind=outside]", state="detached")
        gone = fresh.goto(outside)
        assert gone.status == 410 and "revoked" in fresh.inner_text("main")
        _shot(fresh, "sharing-revoked-410")
        assert colleague.goto(inside).status == 200  # the inside link lives on

        # Its expiry passes (moved into the past on the server): it ends, 410 again.
        sharing_dashboard.manage("shell", "-c", _EXPIRE_ALL)
        expired = colleague.goto(inside)
        assert expired.status == 410 and "expired" in colleague.inner_text("main")
    finally:
        for context in contexts:
            context.close()
    for context in contexts:
        assert_no_csp_violations(context)
    assert ran == [], ran
