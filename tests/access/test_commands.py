"""manage.py grant, revoke and access; create_user's --endpoint; break_glass for instance admins."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from hermes_ui.access import grants
from hermes_ui.access.models import Grant, IdpGroup, Membership
from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import AuditEvent

pytestmark = pytest.mark.django_db


def _run(*args, **options) -> str:
    out = StringIO()
    call_command(*args, stdout=out, **options)
    return out.getvalue()


def test_grant_gives_a_role_on_an_endpoint_with_sources_and_is_audited(pat):
    out = _run(
        "grant",
        "pat",
        "--endpoint",
        "eu",
        "--role",
        "support",
        "--source",
        "cron",
        "--source",
        "telegram",
    )
    assert "pat now has support on eu (sources: cron, telegram)." in out
    made = Grant.objects.get(user=pat)
    assert (made.endpoint, made.role, made.sources, made.origin, made.created_by) == (
        "eu",
        "support",
        ["cron", "telegram"],
        "local",
        None,
    )
    assert access_of(pat).role_on("eu", "cron") == "support"
    assert access_of(pat).role_on("eu", "api") is None
    event = AuditEvent.objects.get(capability="access.grant")
    assert event.user is None and event.username == "(system)"
    assert event.evidence["person"] == "pat" and event.evidence["sources"] == ["cron", "telegram"]


def test_grant_to_a_group_creates_it(pat):
    _run("grant", "hermes-eu-support", "--group", "--endpoint", "*", "--role", "reviewer")
    group = IdpGroup.objects.get(name="hermes-eu-support")
    Membership.objects.create(user=pat, group=group, origin="scim")
    assert access_of(pat).role_on("us") == "reviewer"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["ghost", "--endpoint", "eu", "--role", "support"], "There is no account 'ghost'"),
        (["pat", "--endpoint", "mars", "--role", "support"], "No endpoint 'mars' is configured"),
        (["pat", "--endpoint", "eu", "--role", "owner"], "'owner' is not a role"),
        (["new-team", "--group", "--endpoint", "mars", "--role", "support"], "No endpoint 'mars'"),
    ],
)
def test_grant_refuses_what_does_not_exist(pat, args, message):
    with pytest.raises(CommandError, match=message):
        _run("grant", *args)
    assert not Grant.objects.exists() and not IdpGroup.objects.exists()
    assert not AuditEvent.objects.exists()


def test_revoke_takes_every_grant_on_that_endpoint_and_is_audited(pat):
    grants.grant("eu", "support", user=pat)
    grants.grant("eu", "admin", user=pat, origin="sso")
    grants.grant("us", "support", user=pat)
    out = _run("revoke", "pat", "--endpoint", "eu")
    assert "pat no longer has a role on eu (2 grants revoked)." in out
    assert list(Grant.objects.filter(user=pat).values_list("endpoint", flat=True)) == ["us"]
    event = AuditEvent.objects.get(capability="access.revoke")
    assert event.user is None and event.evidence["person"] == "pat"
    assert sorted(event.evidence["taken"]) == ["admin (sso)", "support (local)"]
    with pytest.raises(CommandError, match="pat has no grant on eu"):
        _run("revoke", "pat", "--endpoint", "eu")
    with pytest.raises(CommandError, match="No endpoint 'mars' is configured"):
        _run("revoke", "pat", "--endpoint", "mars")
    with pytest.raises(CommandError, match="There is no account 'ghost'"):
        _run("revoke", "ghost", "--endpoint", "eu")
    with pytest.raises(CommandError, match="There is no group 'nobody'"):
        _run("revoke", "nobody", "--group", "--endpoint", "eu")


def test_revoke_still_takes_a_grant_on_an_endpoint_no_longer_configured(pat):
    Grant.objects.create(user=pat, endpoint="old", role="support")
    assert "no longer has a role on old" in _run("revoke", "pat", "--endpoint", "old")
    assert not Grant.objects.exists()


def test_access_prints_own_and_group_grants_with_origins_and_the_role_per_endpoint(pat, settings):
    grants.grant("eu", "reviewer", ["cron"], user=pat)
    team = IdpGroup.objects.create(name="hermes-eu-support")
    grants.grant("eu", "support", group=team, origin="scim")
    Membership.objects.create(user=pat, group=team, origin="scim")
    settings.HERMES_UI_GROUP_ROLES = {"hermes-eu-support": [("us", "support", ("telegram",))]}
    out = _run("access", "pat")
    assert out.splitlines() == [
        "pat",
        "Groups:",
        "  hermes-eu-support (SCIM)",
        "Grants:",
        "  reviewer on eu (sources: cron) (local)",
        "  support on eu (via group hermes-eu-support, SCIM)",
        "  support on us (sources: telegram) (via group hermes-eu-support, "
        "from settings (HERMES_UI_OIDC_ROLES))",
        "Role per endpoint:",
        "  eu: support; reviewer on source cron",
        "  us: support on source telegram",
    ]
    with pytest.raises(CommandError, match="There is no account 'ghost'"):
        _run("access", "ghost")


def test_access_of_someone_without_grants_says_none(pat):
    out = _run("access", "pat")
    assert "Grants: none" in out and "  eu: none" in out and "  us: none" in out


def test_create_user_keeps_meaning_every_endpoint_and_takes_an_endpoint(eu_us, django_user_model):
    _run("create_user", "ana", role="admin", password="a-long-password-1")
    ana = django_user_model.objects.get(username="ana")
    assert access_of(ana).instance_admin
    _run("create_user", "eve", "--endpoint", "us", role="support", password="a-long-password-1")
    eve = django_user_model.objects.get(username="eve")
    assert access_of(eve).endpoint_ids() == ["us"]
    with pytest.raises(CommandError, match="No endpoint 'mars' is configured"):
        _run(
            "create_user", "bob", "--endpoint", "mars", role="support", password="a-long-password-1"
        )
    assert not django_user_model.objects.filter(username="bob").exists()


def test_break_glass_is_for_admins_on_every_endpoint(pat):
    grants.grant("eu", "admin", user=pat)
    with pytest.raises(CommandError, match="not an active admin on every endpoint"):
        _run("break_glass", "pat")
    grants.grant("*", "admin", user=pat)
    assert "/accounts/break-glass/" in _run("break_glass", "pat")


def test_the_worked_example_of_the_docs(eu_us, django_user_model):
    """docs/admins/access.md: two teams by group, an instance admin, a cron-only contractor."""
    for name in ["dana", "erin", "uma"]:
        django_user_model.objects.create_user(name)
    _run("grant", "hermes-eu-team", "--group", "--endpoint", "eu", "--role", "reviewer")
    _run("grant", "hermes-us-team", "--group", "--endpoint", "us", "--role", "reviewer")
    _run("grant", "dana", "--endpoint", "*", "--role", "admin")
    _run(
        "create_user",
        "contractor",
        "--endpoint",
        "eu",
        role="support",
        password="a-long-password-1",
    )
    _run("grant", "contractor", "--endpoint", "eu", "--role", "support", "--source", "cron")
    for person, team in [("erin", "hermes-eu-team"), ("uma", "hermes-us-team")]:
        Membership.objects.create(
            user=django_user_model.objects.get(username=person),
            group=IdpGroup.objects.get(name=team),
            origin="sso",
        )
    seen = {
        name: access_of(django_user_model.objects.get(username=name))
        for name in ["dana", "erin", "uma", "contractor"]
    }
    assert seen["dana"].instance_admin
    assert seen["erin"].endpoint_ids() == ["eu"] and seen["uma"].endpoint_ids() == ["us"]
    assert seen["contractor"].endpoint_ids() == ["eu"]
    assert seen["contractor"].sees("eu", "cron") and not seen["contractor"].sees("eu", "telegram")
    assert _run("access", "contractor").splitlines() == [
        "contractor",
        "Groups: none",
        "Grants:",
        "  support on eu (sources: cron) (local)",
        "Role per endpoint:",
        "  eu: support on source cron",
        "  us: none",
    ]
