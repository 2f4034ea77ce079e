"""Minting a token: a sign-in within the last 15 minutes (on the server), a lifetime cap
for single sign-on people, and a limit to some of the endpoints the person may see."""

from io import StringIO

import pytest
from allauth.socialaccount.models import SocialAccount
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import timezone

from hermes_ui.access import grants
from hermes_ui.access.ending import SIGNED_IN_AT
from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import PASSWORD, TEST_KEY

pytestmark = pytest.mark.django_db
URL = "/account/tokens/"
MINT = {"name": "job", "days": "30", "scope": "read"}


@pytest.fixture
def minting_endpoints(settings):
    settings.HERMES_ENDPOINTS = {
        "eu": Endpoint("eu", "http://eu.test", TEST_KEY),
        "us": Endpoint("us", "http://us.test", TEST_KEY),
    }
    settings.HERMES_ENDPOINT_ID = "eu"


def signed_in_ago(client: Client, minutes: float | None) -> None:
    session = client.session
    if minutes is None:
        session.pop(SIGNED_IN_AT, None)
    else:
        session[SIGNED_IN_AT] = timezone.now().timestamp() - minutes * 60
    session.save()


@pytest.mark.parametrize("minutes", [16, None])
def test_an_old_sign_in_cannot_mint_until_signing_in_again(login, users, minutes):
    client = login("support")
    signed_in_ago(client, minutes)
    page = client.get(URL)
    assert page.status_code == 200
    assert 'id="new-token-form"' not in page.text
    assert "within the last 15 minutes" in page.text
    assert 'href="/accounts/login/?next=%2Faccount%2Ftokens%2F"' in page.text
    refused = client.post(URL, MINT)  # the server refuses, whatever the form showed
    assert refused.status_code == 403
    assert not ApiToken.objects.exists()
    again = client.post(
        "/accounts/login/", {"username": "support", "password": PASSWORD, "next": URL}
    )
    assert again.status_code == 302 and again["Location"] == URL
    assert 'id="new-token-form"' in client.get(URL).text
    assert client.post(URL, MINT).status_code == 200
    assert ApiToken.objects.get().user == users["support"]


def test_a_recent_sign_in_mints(login):
    client = login("support")
    signed_in_ago(client, 14)
    assert client.post(URL, MINT).status_code == 200
    assert ApiToken.objects.count() == 1


def test_the_console_needs_no_fresh_sign_in(users):
    out = StringIO()
    call_command("api_token", "create", "support", "--name", "cron job", stdout=out)
    assert tokens.authenticate(out.getvalue().strip()).user == users["support"]


@pytest.fixture
def sso_person(users):
    user = users["reviewer"]
    SocialAccount.objects.create(user=user, provider="oidc", uid="reviewer-at-idp")
    return user


def test_an_sso_persons_token_lasts_at_most_the_cap(login, sso_person):
    client = login("reviewer")
    refused = client.post(URL, {**MINT, "days": "120"})
    assert refused.status_code == 400
    assert "single sign-on accounts last at most 90 days" in refused.text
    assert not ApiToken.objects.exists()
    assert client.post(URL, {**MINT, "days": "90"}).status_code == 200
    token = ApiToken.objects.get()
    assert (token.expires_at - token.created_at).days == 90
    with pytest.raises(ValueError, match="at most 90 days"):
        tokens.issue(sso_person, "x", days=91)
    with pytest.raises(CommandError, match="at most 90 days"):
        call_command("api_token", "create", "reviewer", "--name", "x", "--days", "120")


def test_the_cap_is_a_setting_and_local_people_keep_a_year(login, users, sso_person, settings):
    settings.HERMES_UI_TOKEN_MAX_DAYS = 30
    assert tokens.max_days(sso_person) == 30 and tokens.max_days(users["support"]) == 365
    assert login("reviewer").post(URL, {**MINT, "days": "31"}).status_code == 400
    assert login("support").post(URL, {**MINT, "days": "365"}).status_code == 200


def test_the_form_offers_and_keeps_only_endpoints_one_may_see(minting_endpoints, django_user_model):
    person = django_user_model.objects.create_user("pat", password=PASSWORD)
    grants.grant("eu", "support", user=person)
    client = Client()
    client.force_login(person)
    page = client.get(URL).text
    assert 'name="endpoints" value="eu"' in page and 'value="us"' not in page
    assert client.post(URL, {**MINT, "endpoints": ["us"]}).status_code == 400
    assert client.post(URL, {**MINT, "endpoints": ["eu"]}).status_code == 200
    token = ApiToken.objects.get()
    assert token.endpoints == ["eu"]
    listed = client.get(URL).text
    assert "<td>eu</td>" in listed


def test_the_console_limits_a_token_to_endpoints(minting_endpoints, users):
    out = StringIO()
    call_command(
        "api_token", "create", "support", "--name", "eu job", "--endpoint", "eu", stdout=out
    )
    assert tokens.authenticate(out.getvalue().strip()).endpoints == ["eu"]
    with pytest.raises(CommandError, match="may not see the endpoint 'mars'"):
        call_command("api_token", "create", "support", "--name", "x", "--endpoint", "mars")


def test_only_instance_admins_see_everyones_tokens(minting_endpoints, users, django_user_model):
    tokens.issue(users["support"], "support's")
    eu_admin = django_user_model.objects.create_user("eu-admin")
    grants.grant("eu", "admin", user=eu_admin)
    client = Client()
    client.force_login(eu_admin)
    assert "support&#x27;s" not in client.get(URL).text
