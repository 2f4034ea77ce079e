"""The login page with and without single sign-on, password sign-in off, break-glass,
allauth's pages that stay closed, and the admin's linking page (Django's test client)."""

import re
from io import StringIO
from unittest import mock

import pytest
from allauth.socialaccount.models import SocialAccount
from django.core.management import CommandError, call_command
from django.test import Client

from hermes_ui.audit.models import AuditEvent
from hermes_ui.sso import break_glass
from hermes_ui.sso.config import allauth_providers, oidc_config
from tests.conftest import PASSWORD


@pytest.fixture
def sso_settings(settings):
    settings.HERMES_UI_OIDC = oidc_config(
        issuer="https://idp.example.test",
        client_id="hermes-ui",
        client_secret="s3cret",
        name="Example IdP",
        role_claim=None,
        roles="hermes-admins=admin",
        scopes=["openid"],
    )
    settings.SOCIALACCOUNT_PROVIDERS = allauth_providers(settings.HERMES_UI_OIDC)
    return settings


@pytest.fixture
def password_off(sso_settings):
    sso_settings.HERMES_UI_PASSWORD_LOGIN = False
    return sso_settings


def test_without_single_sign_on_the_login_page_is_as_it_was(client, users):
    page = client.get("/accounts/login/").content.decode()
    assert 'id="password-login"' in page and "Sign in with" not in page
    assert client.post("/accounts/oidc/sso/login/").status_code == 404
    answer = client.post("/accounts/login/", {"username": "support", "password": PASSWORD})
    assert answer.status_code == 302 and answer.url == "/"


def test_with_single_sign_on_the_login_page_offers_it(client, sso_settings, users):
    page = client.get("/accounts/login/?next=/usage/").content.decode()
    assert "Sign in with Example IdP" in page
    assert 'action="/accounts/oidc/sso/login/"' in page
    assert 'name="next" value="/usage/"' in page
    assert 'id="password-login"' in page


def test_the_sign_in_redirect_carries_pkce_state_and_nonce(client, sso_settings, db):
    discovery = {
        "issuer": "https://idp.example.test",
        "authorization_endpoint": "https://idp.example.test/auth",
        "token_endpoint": "https://idp.example.test/token",
        "jwks_uri": "https://idp.example.test/jwks",
    }
    with mock.patch(
        "hermes_ui.sso.provider.Adapter.openid_config", new_callable=mock.PropertyMock
    ) as config:
        config.return_value = discovery
        answer = client.post("/accounts/oidc/sso/login/", {"process": "login"})
    assert answer.status_code == 302
    url = answer.url
    assert url.startswith("https://idp.example.test/auth?")
    for part in (
        "code_challenge_method=S256",
        "code_challenge=",
        "state=",
        "nonce=",
        "scope=openid",
    ):
        assert part in url
    nonce = re.search(r"nonce=([^&]+)", url).group(1)
    (state,) = client.session["socialaccount_states"].values()
    assert state[0]["nonce"] == nonce and state[0]["pkce_code_verifier"]


def test_a_get_does_not_start_a_sign_in(client, sso_settings, db):
    answer = client.get("/accounts/oidc/sso/login/")
    assert answer.status_code == 200
    assert b"Continue to Example IdP" in answer.content and b'<form method="post"' in answer.content


def test_password_sign_in_off_hides_the_form_and_refuses_its_post(client, password_off, users):
    page = client.get("/accounts/login/").content.decode()
    assert "Sign in with Example IdP" in page
    assert 'id="password-login"' not in page and 'name="password"' not in page
    answer = client.post("/accounts/login/", {"username": "admin", "password": PASSWORD})
    assert answer.status_code == 403
    assert b"Password sign-in is off" in answer.content
    assert "_auth_user_id" not in client.session


@pytest.mark.parametrize(
    "path", ["/accounts/signup/", "/accounts/social/signup/", "/accounts/inactive/"]
)
def test_allauths_signup_pages_are_closed(client, sso_settings, path):
    answer = client.get(path)
    assert answer.status_code == 403 and b"Accounts are not made here" in answer.content


@pytest.mark.parametrize(
    "path",
    ["/accounts/password/reset/", "/accounts/email/", "/accounts/3rdparty/", "/accounts/social/"],
)
def test_allauths_other_pages_are_not_there(client, sso_settings, path):
    assert client.get(path).status_code == 404


def test_the_password_form_is_still_guarded_by_django_axes(client, sso_settings, users, settings):
    for _ in range(settings.AXES_FAILURE_LIMIT):
        client.post("/accounts/login/", {"username": "support", "password": "wrong"})
    answer = client.post("/accounts/login/", {"username": "support", "password": PASSWORD})
    assert answer.status_code == 429 and "_auth_user_id" not in client.session


# -- break-glass -------------------------------------------------------------------


def _break_glass(username: str) -> str:
    out = StringIO()
    call_command("break_glass", username, stdout=out)
    return out.getvalue().strip()


def test_break_glass_signs_an_admin_in_once_while_passwords_are_off(client, password_off, users):
    path = _break_glass("admin")
    assert path.startswith("/accounts/break-glass/")
    shown = client.get(path)
    assert shown.status_code == 200 and b"Sign in as admin" in shown.content
    assert "_auth_user_id" not in client.session  # a GET (a link preview) spends nothing
    answer = client.post(path)
    assert answer.status_code == 302 and client.session["_auth_user_id"] == str(users["admin"].pk)
    assert client.get("/audit/").status_code == 200
    assert AuditEvent.objects.filter(capability="auth.break_glass", username="admin").exists()
    assert AuditEvent.objects.filter(capability="auth.break_glass_issued").exists()
    again = Client().post(path)
    assert again.status_code == 400 and b"already used or expired" in again.content


def test_break_glass_is_for_admins_and_expires(client, password_off, users):
    with pytest.raises(CommandError, match="not an active admin"):
        _break_glass("support")
    with pytest.raises(CommandError, match="No account"):
        _break_glass("nobody")
    path = _break_glass("admin")
    later = break_glass.tokens._now().timestamp() + break_glass.MAX_AGE + 60
    with mock.patch.object(break_glass.tokens, "_num_seconds", return_value=int(later)):
        assert client.post(path).status_code == 400
    assert (
        client.post(path.replace("/accounts/break-glass/", "/accounts/break-glass/x")).status_code
        == 400
    )
    assert "_auth_user_id" not in client.session


# -- linking -----------------------------------------------------------------------


def test_only_an_admin_opens_the_linking_page(login):
    assert login("reviewer").get("/account/sso/").status_code == 403
    assert login("admin").get("/account/sso/").status_code == 200


def test_an_admin_links_and_unlinks_a_local_account(login, users):
    admin = login("admin")
    answer = admin.post("/account/sso/", {"username": "support", "subject": "sub-123"})
    assert answer.status_code == 302
    account = SocialAccount.objects.get(provider="sso", uid="sub-123")
    assert account.user == users["support"]
    linked = AuditEvent.objects.get(capability="auth.sso_linked")
    assert linked.evidence == {"subject": "sub-123", "account": "support"}
    assert b"sub-123" in admin.get("/account/sso/").content

    # One identity, one account; one account, one identity.
    again = admin.post("/account/sso/", {"username": "reviewer", "subject": "sub-123"})
    assert again.status_code == 400 and b"already linked to an account" in again.content
    twice = admin.post("/account/sso/", {"username": "support", "subject": "sub-456"})
    assert twice.status_code == 400 and b"unlink it first" in twice.content
    missing = admin.post("/account/sso/", {"username": "ghost", "subject": "sub-789"})
    assert missing.status_code == 400 and b"no account with that username" in missing.content

    users["admin2"].is_superuser = True
    users["admin2"].save()
    root = admin.post("/account/sso/", {"username": "admin2", "subject": "sub-root"})
    assert root.status_code == 400 and b"stays a local" in root.content

    admin.post("/account/sso/", {"action": "unlink", "account": str(account.pk)})
    assert not SocialAccount.objects.filter(uid="sub-123").exists()
    assert AuditEvent.objects.filter(capability="auth.sso_unlinked").count() == 1


def test_a_provider_that_does_not_answer_gets_a_clear_page(client, sso_settings, db):
    from devtools.peer.launcher import free_port

    sso_settings.HERMES_UI_OIDC = oidc_config(
        issuer=f"http://127.0.0.1:{free_port()}",  # nobody listens there
        client_id="hermes-ui",
        client_secret="s3cret",
        name="Example IdP",
        role_claim=None,
        roles="hermes-admins=admin",
        scopes=["openid"],
    )
    sso_settings.SOCIALACCOUNT_PROVIDERS = allauth_providers(sso_settings.HERMES_UI_OIDC)
    answer = client.post("/accounts/oidc/sso/login/", {"process": "login"})
    assert answer.status_code == 503
    assert b"Example IdP could not be reached" in answer.content
    event = AuditEvent.objects.get(capability="auth.sso_refused")
    assert event.error_code == "unreachable" and event.evidence["code"] == "ConnectionError"


def test_a_discovery_document_for_another_issuer_is_refused(client, sso_settings, db):
    with mock.patch(
        "allauth.socialaccount.providers.openid_connect.views.OpenIDConnectOAuth2Adapter.openid_config",
        new_callable=mock.PropertyMock,
    ) as config:
        config.return_value = {"issuer": "https://evil.example.test", "authorization_endpoint": "x"}
        answer = client.post("/accounts/oidc/sso/login/", {"process": "login"})
    assert answer.status_code == 503
    assert AuditEvent.objects.get(capability="auth.sso_refused").evidence["code"] == "OAuth2Error"
