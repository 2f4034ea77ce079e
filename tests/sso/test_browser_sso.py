"""Single sign-on in Debian's Chromium against a real OpenID provider (panva's oidc-provider).

The provider runs devtools/oidc/provider.mjs on loopback; its users' groups
come from a file the tests rewrite (tests/sso/oidc.py).
"""

import json
import sqlite3
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import pytest

from tests.support.browser import PASSWORD, screenshot

pytestmark = [pytest.mark.browser, pytest.mark.peer]

CALLBACK = "/accounts/oidc/sso/login/callback/"


def log_in(page, base_url: str, username: str) -> None:
    """The password form (tests/support/browser.py's log_in would press the first button: SSO's)."""
    page.goto(base_url + "/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("#password-login button[type=submit]")
    page.wait_for_url(lambda url: "/accounts/login/" not in url)


def start_sign_in(page, dashboard):
    page.goto(dashboard.base_url + "/accounts/login/")
    page.get_by_role("button", name="Sign in with Test IdP").click()


def sign_in_at_provider(page, dashboard, login: str):
    """Through the login page's button; at the provider, its login form (any password)
    unless this browser is still signed in there."""
    start_sign_in(page, dashboard)
    page.wait_for_url(lambda url: "/interaction/" in url or left_login_page(url, dashboard))
    if "/interaction/" in page.url:
        page.fill("input[name=login]", login)
        page.fill("input[name=password]", "anything")
        page.click("button[type=submit]")
    page.wait_for_url(lambda url: left_login_page(url, dashboard))


def left_login_page(url: str, dashboard) -> bool:
    """Back at the dashboard: the page signed in to, or the callback's refusal page."""
    return url.startswith(dashboard.base_url) and "/accounts/login/" not in url


def role_badge(page) -> str:
    return page.locator(".who .badge").inner_text().strip()


def log_out(page, dashboard):
    """The dashboard's Log out, then the provider's own "sign out?" page (RP-initiated)."""
    page.get_by_role("button", name="Log out").click()
    page.wait_for_url(lambda url: url.startswith(dashboard.oidc.issuer + "/session/end"))
    page.get_by_role("button", name="Yes, sign me out").click()
    page.wait_for_url(dashboard.base_url + "/accounts/login/")


def refusal(page) -> str:
    page.wait_for_selector("#sso-refused")
    return page.locator("#sso-refused").get_attribute("data-reason")


def evidence(rows) -> list[dict]:
    return [json.loads(row[3]) for row in rows]


def test_the_login_page_offers_the_provider_beside_the_password_form(sso_page, sso_dashboard):
    sso_page.goto(sso_dashboard.base_url + "/")
    assert "/accounts/login/" in sso_page.url
    assert sso_page.get_by_role("button", name="Sign in with Test IdP").is_visible()
    assert sso_page.locator("#password-login #id_username").is_visible()
    screenshot(sso_page, "sso-login-page")


@pytest.mark.parametrize(
    ("login", "username", "role"),
    [("sub-sam", "sam", "support"), ("sub-rita", "rita", "reviewer"), ("sub-ada", "ada", "admin")],
)
def test_each_person_lands_with_the_role_their_groups_map_to(
    sso_page, sso_dashboard, oidc, sso_db, login, username, role
):
    sign_in_at_provider(sso_page, sso_dashboard, login)
    assert sso_page.url.startswith(sso_dashboard.base_url + "/e/local/sessions/")
    assert role_badge(sso_page) == role
    # The account is made from the ID token: named from it, keyed by the subject.
    assert sso_page.locator(".who").inner_text().startswith(username)
    assert sso_db.roles(username) == [role]
    linked = sso_db.rows(
        "SELECT a.uid FROM socialaccount_socialaccount a JOIN auth_user u ON u.id = a.user_id "
        "WHERE u.username = ? AND a.provider = 'sso'",
        username,
    )
    assert linked == [(login,)]
    audited = [e for e in evidence(sso_db.audit("auth.sso_login")) if e["subject"] == login]
    assert audited and audited[-1]["role"] == role and audited[-1]["issuer"] == oidc.issuer
    assert "id_token" not in json.dumps(audited)


def test_a_person_in_no_mapped_group_is_refused_and_no_account_appears(
    sso_page, sso_dashboard, oidc, sso_db
):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-olga")
    assert refusal(sso_page) == "no_role"
    assert "none of the groups" in sso_page.locator("#sso-refused").inner_text()
    screenshot(sso_page, "sso-refused-no-role")
    assert sso_db.user("olga") is None
    assert sso_db.rows("SELECT 1 FROM socialaccount_socialaccount WHERE uid = 'sub-olga'") == []
    refused = [row for row in sso_db.audit("auth.sso_refused") if row[2] == "no_role"]
    assert any(json.loads(row[3])["subject"] == "sub-olga" for row in refused)
    # Still not signed in: the dashboard sends the browser back to the login page.
    sso_page.goto(sso_dashboard.base_url + "/e/local/sessions/")
    assert "/accounts/login/" in sso_page.url


def test_changing_groups_at_the_provider_changes_the_role_at_the_next_sign_in(
    sso_page, sso_dashboard, oidc, sso_db
):
    oidc.set_groups("sub-rita", ["hermes-reviewers"])
    sign_in_at_provider(sso_page, sso_dashboard, "sub-rita")
    assert role_badge(sso_page) == "reviewer"
    log_out(sso_page, sso_dashboard)

    oidc.set_groups("sub-rita", ["hermes-support"])
    sign_in_at_provider(sso_page, sso_dashboard, "sub-rita")
    assert role_badge(sso_page) == "support"
    assert sso_db.roles("rita") == ["support"]
    log_out(sso_page, sso_dashboard)

    # Out of every mapped group: refused, and the account keeps no role.
    oidc.set_groups("sub-rita", ["staff"])
    sign_in_at_provider(sso_page, sso_dashboard, "sub-rita")
    assert refusal(sso_page) == "no_role"
    assert sso_db.roles("rita") == []


def test_logout_signs_out_at_the_provider_too(sso_page, sso_dashboard, oidc):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
    # Losing only the dashboard's session: the provider still knows the browser, and a
    # new sign-in goes through without its login form.
    sso_page.context.clear_cookies(name="sessionid")
    start_sign_in(sso_page, sso_dashboard)
    sso_page.wait_for_url(lambda url: url.startswith(sso_dashboard.base_url + "/e/"))
    assert role_badge(sso_page) == "support"

    ends = []
    sso_page.on("request", lambda r: ends.append(r.url) if "/session/end" in r.url else None)
    log_out(sso_page, sso_dashboard)
    query = parse_qs(urlsplit(ends[0]).query)
    assert query["post_logout_redirect_uri"] == [sso_dashboard.base_url + "/accounts/login/"]
    assert query["client_id"] == ["hermes-ui"] and query["id_token_hint"][0].count(".") == 2
    sso_page.goto(sso_dashboard.base_url + "/e/local/sessions/")
    assert "/accounts/login/" in sso_page.url
    # Signed out at the provider too: it asks who you are again.
    start_sign_in(sso_page, sso_dashboard)
    sso_page.wait_for_url(lambda url: "/interaction/" in url)
    assert sso_page.locator("input[name=login]").is_visible()


def callback_url(page, dashboard, login: str = "sub-sam", process: str = "login") -> str:
    """The login page's sign-in, hop by hop with this browser's cookies (Playwright's
    request API shares them), up to the provider's redirect to the dashboard's
    callback: returns that URL unvisited (a fresh code and this session's state)."""
    page.goto(dashboard.base_url + "/accounts/login/")
    token = page.locator("#sso-login input[name=csrfmiddlewaretoken]").input_value()
    response = page.request.post(
        dashboard.base_url + "/accounts/oidc/sso/login/",
        form={"csrfmiddlewaretoken": token, "process": process},
        max_redirects=0,
    )
    location = urljoin(dashboard.base_url, response.headers["location"])
    for _hop in range(10):
        if location.startswith(dashboard.base_url + CALLBACK):
            return location
        if "/interaction/" in location:  # the provider's login form: any password
            form = {"prompt": "login", "login": login, "password": "anything"}
            response = page.request.post(location, form=form, max_redirects=0)
        else:
            response = page.request.get(location, max_redirects=0)
        location = urljoin(location, response.headers["location"])
    raise AssertionError(f"the provider never redirected to the callback (last: {location})")


def with_query(url: str, **changes) -> str:
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query.update(changes)
    return parts._replace(query=urlencode(query)).geturl()


def refused_with_status(page, url: str):
    response = page.goto(url)
    assert response.status == 403  # a page that says so, never a 500
    return refusal(page)


def test_a_tampered_state_is_refused(sso_page, sso_dashboard, oidc, sso_db):
    callback = callback_url(sso_page, sso_dashboard)
    before = len(sso_db.audit("auth.sso_refused"))
    assert refused_with_status(sso_page, with_query(callback, state="tampered-state")) == "failed"
    assert "could not be completed" in sso_page.locator("#sso-refused").inner_text()
    screenshot(sso_page, "sso-refused-failed")
    assert len(sso_db.audit("auth.sso_refused")) == before + 1
    sso_page.goto(sso_dashboard.base_url + "/e/local/sessions/")
    assert "/accounts/login/" in sso_page.url


def test_a_replayed_code_is_refused(sso_page, sso_dashboard, oidc, sso_db):
    first = callback_url(sso_page, sso_dashboard)
    sso_page.goto(first)  # the code is spent here: signed in
    sso_page.wait_for_url(lambda url: url.startswith(sso_dashboard.base_url + "/e/"))
    code = parse_qs(urlsplit(first).query)["code"][0]
    # A new sign-in's state (valid in this session), carrying the spent code.
    second = callback_url(sso_page, sso_dashboard)
    replay = with_query(second, code=code)
    assert refused_with_status(sso_page, replay) == "failed"
    last = sso_db.audit("auth.sso_refused")[-1]
    assert last[2] == "failed" and json.loads(last[3])["code"] == "OAuth2Error"


@pytest.mark.parametrize("mode", ["nonce", "issuer", "signature"])
def test_an_id_token_with_a_wrong_nonce_issuer_or_signature_is_refused(
    sso_page, sso_dashboard, oidc, sso_db, mode
):
    oidc.tamper(mode)
    callback = callback_url(sso_page, sso_dashboard)
    assert refused_with_status(sso_page, callback) == "failed"
    last = sso_db.audit("auth.sso_refused")[-1]
    assert last[2] == "failed" and json.loads(last[3])["code"] == "OAuth2Error"
    sso_page.goto(sso_dashboard.base_url + "/e/local/sessions/")
    assert "/accounts/login/" in sso_page.url
    # The same sign-in with an honest token goes through.
    oidc.tamper(None)
    sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
    assert role_badge(sso_page) == "support"


def test_an_admin_links_a_local_account_and_it_signs_in_with_the_providers_role(
    sso_page, sso_dashboard, oidc, sso_db
):
    log_in(sso_page, sso_dashboard.base_url, "admin")
    sso_page.goto(sso_dashboard.base_url + "/account/sso/")
    sso_page.fill("#id_username", "reviewer")
    sso_page.fill("#id_subject", "sub-lin")
    sso_page.get_by_role("button", name="Link", exact=True).click()
    sso_page.wait_for_selector("#sso-links code")
    assert "sub-lin" in sso_page.locator("#sso-links").inner_text()
    screenshot(sso_page, "sso-links")
    sso_page.get_by_role("button", name="Log out").click()  # a password session: no provider
    sso_page.wait_for_url(sso_dashboard.base_url + "/accounts/login/")

    sign_in_at_provider(sso_page, sso_dashboard, "sub-lin")
    # The local account, with the role its groups give now (admin, not reviewer).
    assert sso_page.locator(".who").inner_text().startswith("reviewer")
    assert role_badge(sso_page) == "admin"
    assert sso_db.user("lin") is None
    log_out(sso_page, sso_dashboard)
    oidc.set_groups("sub-lin", ["hermes-reviewers"])
    sign_in_at_provider(sso_page, sso_dashboard, "sub-lin")
    assert sso_db.roles("reviewer") == ["reviewer"]


def test_a_same_named_identity_gets_its_own_account_never_the_local_one(
    sso_page, sso_dashboard, oidc, sso_db
):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-imp")
    assert role_badge(sso_page) == "support"
    shown = sso_page.locator(".who span").first.inner_text()
    assert shown and shown != "admin"  # a name of its own (allauth's, from the claims)
    assert sso_db.roles("admin") == ["admin"]
    assert (
        sso_db.rows(
            "SELECT a.uid FROM socialaccount_socialaccount a JOIN auth_user u ON u.id = a.user_id "
            "WHERE u.username = 'admin'"
        )
        == []
    )


def test_a_disabled_account_is_refused(sso_page, sso_dashboard, oidc, sso_db):
    sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
    log_out(sso_page, sso_dashboard)
    with sqlite3.connect(sso_db.path) as db:
        db.execute("UPDATE auth_user SET is_active = 0 WHERE username = 'sam'")
    try:
        sign_in_at_provider(sso_page, sso_dashboard, "sub-sam")
        assert refusal(sso_page) == "inactive"
    finally:
        with sqlite3.connect(sso_db.path) as db:
            db.execute("UPDATE auth_user SET is_active = 1 WHERE username = 'sam'")


def test_a_sign_in_cannot_link_an_identity_to_the_account_signed_in(
    sso_page, sso_dashboard, oidc, sso_db
):
    log_in(sso_page, sso_dashboard.base_url, "support")
    callback = callback_url(sso_page, sso_dashboard, login="sub-olga", process="connect")
    assert refused_with_status(sso_page, callback) == "link_only"
    assert sso_db.rows("SELECT 1 FROM socialaccount_socialaccount WHERE uid = 'sub-olga'") == []


def test_cancelling_at_the_provider_comes_back_to_a_clear_page(sso_page, sso_dashboard, oidc):
    start_sign_in(sso_page, sso_dashboard)
    sso_page.wait_for_url(lambda url: "/interaction/" in url)
    sso_page.get_by_role("link", name="[ Cancel ]").click()
    sso_page.wait_for_url(lambda url: url.startswith(sso_dashboard.base_url + CALLBACK))
    assert refusal(sso_page) == "failed"
    sso_page.goto(sso_dashboard.base_url + "/e/local/sessions/")
    assert "/accounts/login/" in sso_page.url
