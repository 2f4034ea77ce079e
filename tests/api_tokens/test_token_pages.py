"""/account/tokens/: a token is shown once, listed with its dates, revoked with one POST;
admins see and revoke everyone's, others only their own."""

import re

import pytest
from django.test import Client

from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.models import ApiToken

pytestmark = pytest.mark.django_db
URL = "/account/tokens/"


def test_login_is_needed():
    assert Client().get(URL).status_code == 302


def test_create_shows_the_token_once(login, users):
    client = login("support")
    answer = client.post(URL, {"name": "nightly <job>", "days": "30", "scope": "write"})
    assert answer.status_code == 200
    assert answer["Cache-Control"] == "no-store"
    plain = re.search(r'<code id="issued-token">([^<]+)</code>', answer.text).group(1)
    found = tokens.authenticate(plain)
    assert found.user == users["support"] and found.write and found.name == "nightly <job>"
    assert "nightly &lt;job&gt;" in answer.text and "<job>" not in answer.text
    again = client.get(URL)
    assert plain not in again.text  # shown once
    assert found.key_id in again.text and "never" in again.text  # listed, never used


@pytest.mark.parametrize(
    "data",
    [
        {"name": "", "days": "30", "scope": "read"},
        {"name": "x", "days": "366", "scope": "read"},
        {"name": "x", "days": "0", "scope": "read"},
        {"name": "x", "days": "30", "scope": "admin"},
        {"name": "a\x01b", "days": "30", "scope": "read"},
    ],
)
def test_bad_input_is_a_400_and_issues_nothing(login, data):
    assert login("reviewer").post(URL, data).status_code == 400
    assert not ApiToken.objects.exists()


def test_users_see_and_revoke_their_own_only(login, users):
    theirs, _ = tokens.issue(users["reviewer"], "reviewer's")
    mine, _ = tokens.issue(users["support"], "support's")
    client = login("support")
    page = client.get(URL).text
    assert "support&#x27;s" in page and "reviewer&#x27;s" not in page
    assert client.post(f"{URL}{theirs.pk}/revoke/").status_code == 404
    assert client.post(f"{URL}{mine.pk}/revoke/").status_code == 302
    mine.refresh_from_db()
    theirs.refresh_from_db()
    assert mine.revoked_at is not None and theirs.revoked_at is None


def test_admins_see_and_revoke_anyones(login, users):
    theirs, plain = tokens.issue(users["reviewer"], "reviewer's")
    client = login("admin")
    assert "reviewer&#x27;s" in client.get(URL).text
    assert client.post(f"{URL}{theirs.pk}/revoke/").status_code == 302
    assert tokens.authenticate(plain) is None
    theirs.refresh_from_db()
    assert theirs.revoked_by == users["admin"]


def test_revoke_needs_post_and_csrf(users):
    token, _ = tokens.issue(users["support"], "x")
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["support"])
    assert client.get(f"{URL}{token.pk}/revoke/").status_code == 405
    assert client.post(f"{URL}{token.pk}/revoke/").status_code == 403
    token.refresh_from_db()
    assert token.revoked_at is None
