"""Access ends when the identity provider says so, against the real oidc-provider.

The dashboard under test revalidates everyone at every round
(``HERMES_UI_SSO_REVALIDATE_MINUTES`` is tiny in tests/sso/oidc.py); the test
runs the round itself (``manage.py run_periodic sso-revalidate``, the schedule's
function in a process on the server's database), so no task worker is needed.
"""

import json
import subprocess
import urllib.error
import urllib.request

import pytest

from tests.sso.test_browser_sso import role_badge, sign_in_at_provider
from tests.support.browser import REPO, manage_py
from tests.support.waiting import until

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def manage(dashboard, *args: str) -> str:
    answer = subprocess.run(
        manage_py(*args),
        env=dashboard.env,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=True,
    )
    return answer.stdout


def revalidate(dashboard) -> dict:
    """One round of the schedule's sso-revalidate; its counts by outcome."""
    out = manage(dashboard, "run_periodic", "sso-revalidate")
    counts = out.strip().rpartition("sso-revalidate: ")[2]
    return json.loads(counts.replace("'", '"'))


def mint_token(dashboard, username: str) -> str:
    """An API token for ``username``, made with api_tokens.tokens.issue on the server's DB."""
    script = (
        "from django.contrib.auth import get_user_model\n"
        "from hermes_ui.api_tokens.tokens import issue\n"
        f"user = get_user_model().objects.get(username={username!r})\n"
        "print(issue(user, 'revalidation test')[1])\n"
    )
    return manage(dashboard, "shell", "-c", script).strip().splitlines()[-1]


def api_status(dashboard, token: str) -> int:
    request = urllib.request.Request(
        dashboard.base_url + "/api/v1/endpoints", headers={"Authorization": f"Bearer {token}"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        return error.code


def signed_out(page, dashboard) -> bool:
    page.goto(dashboard.base_url + "/e/local/sessions/")
    return "/accounts/login/" in page.url


def test_losing_one_group_at_the_provider_lowers_the_role_without_a_sign_in(
    sso_page, sso_dashboard, oidc, sso_db
):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-rita")
    assert role_badge(sso_page) == "reviewer"
    oidc.set_groups("sub-rita", ["staff", "hermes-support"])
    until(
        lambda: revalidate(sso_dashboard) and sso_db.groups("rita") == ["hermes-support"],
        30,
        "the round never applied the provider's new groups",
    )
    sso_page.reload()
    assert role_badge(sso_page) == "support"  # the same session, one role lower
    changed = [json.loads(row[3]) for row in sso_db.audit("auth.sso_revalidated")]
    assert any(e["account"] == "rita" and e["groups"] == ["hermes-support"] for e in changed)
    assert "reviewer@*" not in changed[-1]["grants"] and "support@*" in changed[-1]["grants"]


def test_losing_every_group_ends_the_session_and_the_token(sso_page, sso_dashboard, oidc, sso_db):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
    token = mint_token(sso_dashboard, "sam")
    assert api_status(sso_dashboard, token) == 200
    oidc.set_groups("sub-sam", ["finance"])
    until(
        lambda: revalidate(sso_dashboard) and sso_db.groups("sam") == [],
        30,
        "the round never removed the lost groups",
    )
    assert api_status(sso_dashboard, token) == 401
    assert signed_out(sso_page, sso_dashboard)


def test_a_disabled_account_at_the_provider_loses_session_and_token(
    sso_page, sso_dashboard, oidc, sso_db
):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
    assert role_badge(sso_page) == "support"
    token = mint_token(sso_dashboard, "sam")
    assert api_status(sso_dashboard, token) == 200
    oidc.set_disabled("sub-sam", True)
    until(
        lambda: revalidate(sso_dashboard).get("refused") and sso_db.groups("sam") == [],
        30,
        "the provider's refusal never took the groups away",
    )
    assert api_status(sso_dashboard, token) == 401
    assert signed_out(sso_page, sso_dashboard)
    refused = [row for row in sso_db.audit("auth.sso_revalidated") if row[2] == "refused"]
    assert any(json.loads(row[3])["account"] == "sam" for row in refused)
    # No token is ever written to the trail.
    assert not sso_db.rows(
        "SELECT 1 FROM audit_auditevent WHERE evidence LIKE '%refresh%' "
        "OR evidence LIKE '%access_token%'"
    )


def test_signing_out_at_the_provider_ends_the_dashboard_session(
    sso_page, sso_dashboard, oidc, sso_db
):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
    assert role_badge(sso_page) == "support"
    # At the provider itself (another tab of the same browser), not through the dashboard.
    before = len(sso_db.audit("auth.sso_backchannel_logout"))
    provider_tab = sso_page.context.new_page()
    provider_tab.goto(oidc.issuer + "/session/end")
    provider_tab.get_by_role("button", name="Yes, sign me out").click()
    provider_tab.wait_for_selector("text=Signed out")
    done = until(
        lambda: sso_db.audit("auth.sso_backchannel_logout")[before:],
        15,
        "the provider's back-channel logout never reached the dashboard",
    )
    assert done[0][1] == "success" and json.loads(done[0][3]) == {
        "subject": "sub-sam",
        "account": "sam",
    }
    assert signed_out(sso_page, sso_dashboard)
