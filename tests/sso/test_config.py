"""HERMES_UI_OIDC_*: strict parsing, and the role a person's groups map to."""

import os
import subprocess
import sys

import pytest
from django.core.exceptions import ImproperlyConfigured

from hermes_ui.sso.claims import groups_of, mapped_role
from hermes_ui.sso.config import ROLES, allauth_providers, oidc_config, parse_roles
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
    assert config.roles == {"hermes-admins": "admin", "hermes-support": "support"}
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
    assert parse_roles("X", "team=a=admin") == {"team=a": "admin"}


def test_the_roles_are_the_dashboards():
    assert roles.ROLES == ROLES


def test_the_highest_mapped_role_wins_and_unmapped_groups_are_ignored():
    mapping = {"ops": "support", "leads": "admin", "qa": "reviewer"}
    assert mapped_role(["staff", "qa", "ops"], mapping) == "reviewer"
    assert mapped_role(["ops", "leads"], mapping) == "admin"
    assert mapped_role(["staff"], mapping) is None
    assert mapped_role([], mapping) is None


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
    answer = _check({"HERMES_UI_PASSWORD_LOGIN": "false"})
    assert answer.returncode != 0
    assert "HERMES_UI_PASSWORD_LOGIN=false needs single sign-on" in answer.stderr
