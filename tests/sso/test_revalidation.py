"""Revalidation without a provider (fast): silence keeps access, then fails closed;
and what a sign-in's groups become (hermes_ui.sso.groups)."""

import logging
from datetime import timedelta

import pytest
from allauth.socialaccount.models import SocialAccount, SocialToken
from django.utils import timezone

from devtools.peer.launcher import free_port
from hermes_ui.access.grants import grant
from hermes_ui.access.models import AccessEnd, Grant, IdpGroup, Membership, Origin
from hermes_ui.access.rules import access_of, forget
from hermes_ui.background import schedule
from hermes_ui.sso import groups as idp_groups
from hermes_ui.sso import revalidation
from hermes_ui.sso.config import PROVIDER_ID, allauth_providers, oidc_config
from hermes_ui.sso.models import SsoCheck

REFRESH = "refresh-token-that-must-never-be-logged"


@pytest.fixture
def revalidation_sso(settings):
    settings.HERMES_UI_OIDC = oidc_config(
        # Nothing listens there: every request is refused at once.
        issuer=f"http://127.0.0.1:{free_port()}",
        client_id="hermes-ui",
        client_secret="s3cret",
        name="Example IdP",
        role_claim=None,
        roles="hermes-support=support",
        scopes=["openid"],
        revalidate_minutes=1,
    )
    settings.SOCIALACCOUNT_PROVIDERS = allauth_providers(settings.HERMES_UI_OIDC)
    settings.HERMES_UI_SSO_REVALIDATE_MINUTES = 1
    settings.HERMES_UI_GROUP_ROLES = {"hermes-support": [("*", "support", ())]}
    settings.SOCIALACCOUNT_REQUESTS_TIMEOUT = 2
    return settings


@pytest.fixture
def revalidation_person(revalidation_sso, django_user_model):
    user = django_user_model.objects.create_user("sam", password="x")
    account = SocialAccount.objects.create(user=user, provider=PROVIDER_ID, uid="sub-sam")
    SocialToken.objects.create(account=account, token="access", token_secret=REFRESH)
    idp_groups.apply(user, ["hermes-support", "staff"])
    return user


def last_checked(user, minutes_ago: float) -> None:
    SsoCheck.objects.update_or_create(
        user=user, defaults={"checked_at": timezone.now() - timedelta(minutes=minutes_ago)}
    )


def test_the_round_is_in_the_schedule_every_minute_while_on(revalidation_sso):
    assert schedule.BY_NAME["sso-revalidate"].seconds() == 60
    revalidation_sso.HERMES_UI_SSO_REVALIDATE_MINUTES = 0
    assert schedule.BY_NAME["sso-revalidate"].seconds() == 0


def test_a_person_checked_recently_is_not_asked_again(revalidation_person):
    last_checked(revalidation_person, 0.5)
    assert revalidation.revalidate_round() == {}


def test_an_unreachable_provider_keeps_access_then_fails_closed(revalidation_person, caplog):
    last_checked(revalidation_person, 2)
    with caplog.at_level(logging.WARNING, logger="hermes_ui.sso"):
        assert revalidation.revalidate_round() == {"unreachable": 1}
    forget(revalidation_person)
    assert access_of(revalidation_person).highest() == "support"
    lines = [r.getMessage() for r in caplog.records if r.name == "hermes_ui.sso"]
    assert len(lines) == 1 and "sam" in lines[0] and "did not answer" in lines[0]
    assert REFRESH not in caplog.text and "s3cret" not in caplog.text
    assert not AccessEnd.objects.exists()
    # Still silent a round later: kept, and the log is not repeated.
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hermes_ui.sso"):
        assert revalidation.revalidate_round() == {"unreachable": 1}
    assert not caplog.records and not AccessEnd.objects.exists()

    # Three intervals without an answer: as if the provider had refused.
    last_checked(revalidation_person, 3.5)
    assert revalidation.revalidate_round() == {"refused": 1}
    forget(revalidation_person)
    assert access_of(revalidation_person).highest() is None
    assert not Membership.objects.filter(user=revalidation_person).exists()
    assert not SocialToken.objects.exists()
    assert AccessEnd.objects.filter(user=revalidation_person).exists()
    # Nothing left from the provider: the next rounds leave the person alone.
    assert revalidation.revalidate_round() == {}


def test_only_groups_that_mean_something_become_memberships(revalidation_sso, django_user_model):
    user = django_user_model.objects.create_user("rita", password="x")
    grant("*", "support", user=user, origin=Origin.SSO)  # what the upgrade gave SSO people
    grant("*", "reviewer", group=IdpGroup.objects.create(name="qa"))
    directory = [f"dept-{n}" for n in range(300)] + ["qa", "hermes-support"]
    assert idp_groups.apply(user, directory) == ["hermes-support", "qa"]
    assert sorted(IdpGroup.objects.values_list("name", flat=True)) == ["hermes-support", "qa"]
    assert not Grant.objects.filter(user=user, origin=Origin.SSO).exists()
    assert access_of(user).highest() == "reviewer"
    # The next sign-in's groups replace them.
    idp_groups.apply(user, ["hermes-support"])
    forget(user)
    assert idp_groups.names_of(user) == ["hermes-support"]
    assert access_of(user).highest() == "support"


def test_groups_of_a_person_without_an_account_yet(revalidation_sso, db):
    assert idp_groups.access_from(["staff"]).highest() is None
    assert idp_groups.access_from(["staff", "hermes-support"]).highest() == "support"
