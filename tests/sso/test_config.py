"""HERMES_UI_OIDC_*: strict parsing, and the role a person's groups map to."""

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from hermes_ui.sso.claims import groups_of
from hermes_ui.sso.config import (
    ROLES,
    allauth_providers,
    group_roles,
    oidc_config,
    parse_roles,
)
from hermes_ui.web import roles
from tests.support.browser import REPO

BASE = {
    "issuer": "https://idp.example.test/realms/team",
    "client_id": "hermes-ui",
    "client_secret": "s3cret",
    "name": None,
    "role_claim": None,
    "roles": "hermes-admins=admin,hermes-support=support",
    "scopes": ["openid", "profile", "email"],
}


def test_no_variable_means_no_single_sign_on():
    assert oidc_config(**{**BASE, **dict.fromkeys(BASE.keys() - {"scopes"})}) is None


def test_a_full_configuration_with_defaults():
    config = oidc_config(**BASE)
    assert config.role_claim == "groups" and config.name == "single sign-on"
    assert config.roles == {
        "hermes-admins": [("*", "admin", ())],
        "hermes-support": [("*", "support", ())],
    }
    assert "offline_access" not in config.scopes  # revalidation off: no refresh token asked
    app = allauth_providers(config)["hermes_oidc"]["APPS"][0]
    assert app["settings"]["oauth_pkce_enabled"] is True
    assert app["settings"]["server_url"] == BASE["issuer"]


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"client_secret": None}, "HERMES_UI_OIDC_CLIENT_SECRET"),
        ({"issuer": None}, "HERMES_UI_OIDC_ISSUER"),
        ({"roles": None}, "HERMES_UI_OIDC_ROLES"),
        ({"roles": "hermes-admins=root"}, "'root'"),
        ({"roles": "hermes-admins"}, "is not group=role"),
        ({"roles": "a=admin,a=support"}, "mapped twice"),
        ({"roles": " , "}, "at least one group"),
        ({"scopes": ["profile"]}, "must include openid"),
    ],
)
def test_a_bad_configuration_names_the_variable(changes, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        oidc_config(**{**BASE, **changes})


def test_a_group_name_may_contain_an_equals_sign_the_role_is_after_the_last():
    assert parse_roles("X", "team=a=admin") == {"team=a": [("*", "admin", ())]}


KNOWN = {"eu": object(), "eu-cron": object(), "us": object()}


def test_todays_syntax_still_means_every_endpoint():
    assert group_roles("ops=support,leads=admin", KNOWN) == {
        "ops": [("*", "support", ())],
        "leads": [("*", "admin", ())],
    }


def test_endpoints_after_an_at_and_items_without_equals_continue_the_list():
    assert group_roles("hermes-eu-support=support@eu,eu-cron,leads=admin@us", KNOWN) == {
        "hermes-eu-support": [("eu", "support", ()), ("eu-cron", "support", ())],
        "leads": [("us", "admin", ())],
    }


def test_sources_follow_a_slash_joined_by_plus():
    assert group_roles("hermes-eu-cron=support@eu/cron+telegram,ops=reviewer@*/cron", KNOWN) == {
        "hermes-eu-cron": [("eu", "support", ("cron", "telegram"))],
        "ops": [("*", "reviewer", ("cron",))],
    }
    # Without an endpoint the sources are on every endpoint.
    assert group_roles("bots=support/cron", KNOWN) == {"bots": [("*", "support", ("cron",))]}


def test_a_group_may_hold_different_roles_on_different_endpoints():
    assert group_roles("g=admin@eu,g=support@us", KNOWN) == {
        "g": [("eu", "admin", ()), ("us", "support", ())]
    }


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("g=support@nowhere", r"'nowhere' \(for 'g'\) is not configured \(known: \*, eu, eu-"),
        ("g=support@eu,mars", "'mars'"),
        ("g=support,eu", "gives every endpoint; to list endpoints write g=support@ep1,ep2"),
        ("eu,g=support", "'eu' is not group=role"),
        ("g=support@eu/", "has a '/' but no source"),
        ("g=boss@eu", "'boss'"),
        ("g=support@eu,g=admin@eu", "mapped twice on 'eu'"),
        ("=support@eu", "is not group=role"),
    ],
)
def test_a_bad_entry_is_a_clear_error(value, message):
    with pytest.raises(ImproperlyConfigured, match=message):
        group_roles(value, KNOWN)


def test_the_group_map_alone_does_not_turn_single_sign_on_on():
    only_roles = {**BASE, **dict.fromkeys(["issuer", "client_id", "client_secret"])}
    assert oidc_config(**only_roles) is None
    assert group_roles(BASE["roles"], {}) == {
        "hermes-admins": [("*", "admin", ())],
        "hermes-support": [("*", "support", ())],
    }
    assert group_roles(None, KNOWN) == {} and group_roles("  ", KNOWN) == {}


def test_revalidation_asks_for_a_refresh_token():
    config = oidc_config(**BASE, revalidate_minutes=60)
    assert config.scopes[-1] == "offline_access"
    assert allauth_providers(config)["hermes_oidc"]["APPS"][0]["settings"]["scope"][-1] == (
        "offline_access"
    )


def test_the_roles_are_the_dashboards():
    assert roles.ROLES == ROLES


def test_a_claim_may_be_one_string_and_other_values_are_no_groups():
    assert groups_of({"groups": "qa"}, "groups") == ["qa"]
    assert groups_of({"roles": ["qa", 3, None]}, "roles") == ["qa"]
    assert groups_of({"groups": {"qa": True}}, "groups") == []
    assert groups_of({}, "groups") == []


def _check(env: dict) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("HERMES_UI_OIDC")}
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), "check"],
        env={**clean, **env},
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
    )


def test_start_up_stops_with_a_clear_error():
    answer = _check({"HERMES_UI_OIDC_ISSUER": "https://idp.example.test"})
    assert answer.returncode != 0
    assert "Single sign-on needs HERMES_UI_OIDC_CLIENT_ID" in answer.stderr
    # The group map alone (SCIM without single sign-on) starts.
    assert _check({"HERMES_UI_OIDC_ROLES": "g=support@*/cron"}).returncode == 0
    answer = _check({"HERMES_UI_OIDC_ROLES": "g=support@mars"})
    assert answer.returncode != 0
    assert "the endpoint 'mars' (for 'g') is not configured (known: *" in answer.stderr
    answer = _check({"HERMES_UI_PASSWORD_LOGIN": "false"})
    assert answer.returncode != 0
    assert "HERMES_UI_PASSWORD_LOGIN=false needs single sign-on" in answer.stderr
