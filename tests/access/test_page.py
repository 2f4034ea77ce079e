"""/access/: instance admins see who has what and give, revoke and end access; others get 403."""

import re

import pytest
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.access.models import AccessEnd, Grant, IdpGroup, Membership
from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import AuditEvent
from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(login, eu_us):
    return login("admin")


def _row(page: str, row_id: str) -> str:
    found = re.search(rf'<tr id="{row_id}">(.*?)</tr>', page, re.S)
    assert found, f"no row {row_id}"
    return re.sub(r"\s+", " ", found.group(1))


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_page_shows_grants_by_person_and_group_with_their_origin(admin, pat, settings):
    grants.grant("eu", "reviewer", ["cron"], user=pat)
    grants.grant("us", "support", user=pat, origin="sso")
    team = IdpGroup.objects.create(name="hermes-eu-support")
    grants.grant("eu", "support", group=team, origin="scim")
    Membership.objects.create(user=pat, group=team, origin="scim")
    settings.HERMES_UI_GROUP_ROLES = {"hermes-us-admins": [("us", "admin", ())]}
    mapped = IdpGroup.objects.create(name="hermes-us-admins")
    Membership.objects.create(user=pat, group=mapped, origin="sso")

    answer = admin.get("/access/?q=pat")
    assert answer.status_code == 200
    page = answer.content.decode()
    raw = _row(page, f"person-{pat.pk}")
    row = _text(raw)
    assert "reviewer on eu (sources: cron) (local)" in row
    assert "support on us (SSO)" in row
    assert "hermes-eu-support (SCIM)" in row and "hermes-us-admins (SSO)" in row
    assert "support on eu (via group hermes-eu-support, SCIM)" in row
    assert "admin on us (via group hermes-us-admins, from settings (HERMES_UI_OIDC_ROLES))" in row
    # Effective roles, as the one rule decides: the settings' map wins on us.
    assert "eu : support; reviewer on source cron" in row
    assert "us : admin" in row
    # Revoke buttons for the person's own grants only, not for what a group gives.
    assert raw.count('name="grant"') == 2

    groups = _text(page.split('id="group-table"', 1)[1])
    assert "hermes-eu-support 1 support on eu (SCIM)" in groups
    assert "hermes-us-admins 1 admin on us (from settings (HERMES_UI_OIDC_ROLES))" in groups


def test_the_people_list_is_paged(admin, django_user_model, eu_us):
    for n in range(30):
        django_user_model.objects.create_user(f"person{n:02}")
    first = admin.get("/access/").content.decode()
    assert first.count('<tr id="person-') == 25 and 'rel="next"' in first
    second = admin.get("/access/?page=2").content.decode()
    assert "person29" in second and "person00" not in second
    assert admin.get("/access/?page=nonsense").status_code == 200


def test_granting_to_a_person_through_the_page_is_applied_and_audited(admin, pat, users):
    answer = admin.post(
        "/access/grant/",
        {"person": "pat", "endpoint": "eu", "role": "reviewer", "sources": "telegram, cron"},
    )
    assert answer.status_code == 302
    made = Grant.objects.get(user=pat)
    assert (made.endpoint, made.role, made.sources, made.origin) == (
        "eu",
        "reviewer",
        ["cron", "telegram"],
        "local",
    )
    assert made.created_by == users["admin"]
    assert access_of(pat).role_on("eu", "cron") == "reviewer"
    assert access_of(pat).role_on("eu", "api") is None
    event = AuditEvent.objects.get(capability="access.grant", evidence__person="pat")
    assert event.user == users["admin"] and event.endpoint == "eu"
    assert "pat now has reviewer on eu" in _text(admin.get(answer.url).content.decode())


def test_granting_to_a_new_group_creates_it(admin, pat, users):
    answer = admin.post(
        "/access/grant/", {"group": "hermes-contractors", "endpoint": "*", "role": "support"}
    )
    assert answer.status_code == 302
    group = IdpGroup.objects.get(name="hermes-contractors")
    assert Grant.objects.filter(group=group, endpoint="*", role="support").exists()
    Membership.objects.create(user=pat, group=group, origin="sso")
    assert access_of(pat).role_on("us") == "support"
    assert AuditEvent.objects.filter(
        capability="access.grant", user=users["admin"], evidence__group="hermes-contractors"
    ).exists()


def test_revoking_through_the_page_takes_the_grant_and_is_audited(admin, pat, users):
    made = grants.grant("eu", "support", user=pat)
    answer = admin.post("/access/revoke/", {"grant": made.pk})
    assert answer.status_code == 302
    assert not Grant.objects.filter(user=pat).exists()
    assert access_of(pat).role_on("eu") is None
    event = AuditEvent.objects.get(capability="access.revoke")
    assert event.user == users["admin"] and event.evidence["person"] == "pat"
    # The same button again, or a made-up id: a message, never a 500.
    again = admin.post("/access/revoke/", {"grant": made.pk}, follow=True)
    assert again.status_code == 200 and "That grant no longer exists." in again.content.decode()
    assert admin.post("/access/revoke/", {"grant": "x"}).status_code == 302


def test_an_admin_cannot_take_their_own_star_grant_here(admin, users):
    own = Grant.objects.get(user=users["admin"], endpoint="*")
    page = admin.get("/access/?q=admin").content.decode()
    assert 'name="grant"' not in _row(page, f"person-{users['admin'].pk}")
    assert 'name="grant"' in _row(page, f"person-{users['admin2'].pk}")
    answer = admin.post("/access/revoke/", {"grant": own.pk}, follow=True)
    assert "cannot change your own role on every endpoint" in answer.content.decode()
    assert Grant.objects.filter(pk=own.pk).exists()
    demote = admin.post("/access/grant/", {"person": "admin", "endpoint": "*", "role": "support"})
    assert demote.status_code == 400
    assert access_of(users["admin"]).instance_admin


def test_ending_a_persons_sessions_through_the_page_signs_them_out(admin, pat, users):
    grants.grant("eu", "support", user=pat)
    theirs = Client()
    theirs.post("/accounts/login/", {"username": "pat", "password": PASSWORD})
    assert theirs.get("/mentions/").status_code == 200
    assert admin.post("/access/end-sessions/", {"user": pat.pk}).status_code == 302
    assert AccessEnd.objects.filter(user=pat).exists()
    assert AuditEvent.objects.filter(
        capability="access.sessions_ended", user=users["admin"], evidence__person="pat"
    ).exists()
    after = theirs.get("/mentions/")
    assert after.status_code == 302 and "/accounts/login/" in after.url
    assert admin.post("/access/end-sessions/", {"user": "999999"}).status_code == 302


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (
            {"person": "pat", "endpoint": "mars", "role": "support"},
            "No endpoint &#x27;mars&#x27; is configured",
        ),
        ({"person": "pat", "endpoint": "eu", "role": "owner"}, "&#x27;owner&#x27; is not a role"),
        (
            {"person": "ghost", "endpoint": "eu", "role": "support"},
            "There is no account &#x27;ghost&#x27;",
        ),
        ({"endpoint": "eu", "role": "support"}, "Give either a person or a group"),
        (
            {"person": "pat", "group": "g", "endpoint": "eu", "role": "support"},
            "Give either a person or a group",
        ),
        (
            {"person": "pat", "endpoint": "eu", "role": "support", "sources": "a\x07b"},
            "is not a source name",
        ),
    ],
)
def test_bad_input_answers_the_form_with_an_error(admin, pat, data, message):
    answer = admin.post("/access/grant/", data)
    assert answer.status_code == 400
    assert message in answer.content.decode()
    assert not Grant.objects.filter(user=pat).exists()
    assert not IdpGroup.objects.exists()


def test_only_admins_on_every_endpoint_may_open_it(login, eu_us, users, django_user_model):
    assert login("support").get("/access/").status_code == 403
    eu_admin = django_user_model.objects.create_user("eu-admin")
    Grant.objects.filter(user__isnull=False).delete()  # nobody keeps a role on *
    grants.grant("eu", "admin", user=eu_admin)
    client = Client()
    client.force_login(eu_admin)
    assert client.get("/access/").status_code == 403
    assert (
        client.post(
            "/access/grant/", {"person": "eu-admin", "endpoint": "*", "role": "admin"}
        ).status_code
        == 403
    )
    assert client.post("/access/end-sessions/", {"user": eu_admin.pk}).status_code == 403
    assert not Grant.objects.filter(endpoint="*").exists()
    assert not AccessEnd.objects.exists()
    # Nor the other instance pages: single sign-on links.
    assert client.get("/account/sso/").status_code == 403
    # The menu offers Access to instance admins only.
    assert 'href="/access/"' not in client.get("/mentions/").content.decode()
    grants.grant("*", "admin", ["cron"], user=eu_admin)  # admin everywhere, but only on cron
    assert client.get("/access/").status_code == 403


def test_the_menu_offers_access_to_an_instance_admin(admin):
    assert 'href="/access/"' in admin.get("/mentions/").content.decode()


def test_names_from_the_identity_provider_are_escaped(admin, pat):
    group = IdpGroup.objects.create(name="<script>alert(1)</script>")
    grants.grant("eu", "support", group=group, origin="scim")
    Membership.objects.create(user=pat, group=group, origin="scim")
    page = admin.get("/access/").content.decode()
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
