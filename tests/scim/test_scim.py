"""SCIM 2.0 at /scim/v2/ with the requests Okta and Entra ID send (RFC 7644).

Bodies are copied from Okta's and Microsoft's SCIM provisioning guides: Okta
PATCHes with a value object and no path, Entra ID with a path and string
booleans, and both look a person up by ``userName`` before creating them.
"""

from urllib.parse import quote

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.access.models import IdpGroup, Membership
from hermes_ui.access.rules import access_of
from hermes_ui.api_tokens import tokens
from hermes_ui.audit.models import AuditEvent
from tests.scim.conftest import TOKEN

USER = "urn:ietf:params:scim:schemas:core:2.0:User"
GROUP = "urn:ietf:params:scim:schemas:core:2.0:Group"
PATCH_OP = "urn:ietf:params:scim:api:messages:2.0:PatchOp"
ERROR = "urn:ietf:params:scim:api:messages:2.0:Error"

OKTA_USER = {
    "schemas": [USER],
    "userName": "test.user@okta.local",
    "name": {"givenName": "Test", "familyName": "User"},
    "emails": [{"primary": True, "value": "test.user@okta.local", "type": "work"}],
    "displayName": "Test User",
    "locale": "en-US",
    "externalId": "00ujl29u0le5T6Aj10h7",
    "groups": [],
    "password": "1mz050nq",
    "active": True,
}
ENTRA_USER = {
    "schemas": [USER, "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User"],
    "externalId": "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef",
    "userName": "Test_User_ab6490ee@testuser.com",
    "active": True,
    "emails": [{"primary": True, "type": "work", "value": "Test_User_ab6490ee@testuser.com"}],
    "meta": {"resourceType": "User"},
    "name": {"formatted": "givenName familyName", "familyName": "familyName", "givenName": "g"},
    "roles": [],
}


def _filter(attribute, value):
    return quote(f'{attribute} eq "{value}"')


def _create(idp, body):
    answer = idp.send("post", "/scim/v2/Users", body)
    assert answer.status_code == 201, answer.content
    return answer.doc["id"], get_user_model().objects.get(username=body["userName"])


def _fresh(user):
    return get_user_model().objects.get(pk=user.pk)


# -- Users --------------------------------------------------------------------------------


def test_rfc7644_3_3_okta_creates_a_person_who_signs_in_by_sso(idp):
    answer = idp.send("post", "/scim/v2/Users", OKTA_USER)
    assert answer.status_code == 201
    assert answer["Location"] == f"http://testserver/scim/v2/Users/{answer.doc['id']}"
    assert answer.doc["userName"] == "test.user@okta.local"
    assert answer.doc["externalId"] == "00ujl29u0le5T6Aj10h7"
    assert answer.doc["active"] is True and answer.doc["schemas"] == [USER]
    person = get_user_model().objects.get(username="test.user@okta.local")
    assert (person.first_name, person.last_name, person.email) == (
        "Test",
        "User",
        "test.user@okta.local",
    )
    assert not person.has_usable_password()  # Okta's password is not kept: SSO only
    event = AuditEvent.objects.get(capability="scim.user_create")
    assert event.evidence["account"] == "test.user@okta.local"
    assert "1mz050nq" not in str(event.evidence)
    # A created person has no access until a grant or a group gives it.
    assert access_of(person).highest() is None
    got = idp.send("get", f"/scim/v2/Users/{answer.doc['id']}")
    assert got.status_code == 200 and got.doc["emails"][0]["value"] == "test.user@okta.local"


def test_rfc7644_3_4_2_2_filter_on_username_as_okta_and_entra_look_people_up(
    idp, django_user_model
):
    path = f"/scim/v2/Users?filter={_filter('userName', OKTA_USER['userName'])}"
    before = idp.send("get", path + "&startIndex=1&count=100")
    assert before.status_code == 200
    assert before.doc["totalResults"] == 0 and before.doc["Resources"] == []
    scim_id, _ = _create(idp, OKTA_USER)
    _create(idp, ENTRA_USER)
    found = idp.send("get", path.replace("test.user", "TEST.USER") + "&startIndex=1&count=100")
    assert found.doc["totalResults"] == 1  # userName is case-insensitive (RFC 7643 §4.1.1)
    assert [r["id"] for r in found.doc["Resources"]] == [scim_id]
    by_external = idp.send(
        "get", f"/scim/v2/Users?filter={_filter('externalId', ENTRA_USER['externalId'])}"
    )
    assert [r["userName"] for r in by_external.doc["Resources"]] == [ENTRA_USER["userName"]]


def test_rfc7644_3_4_2_4_paging_and_superusers_are_never_listed(idp, django_user_model):
    django_user_model.objects.create_superuser("breakglass", password="a-long-password-1")
    for n in range(3):
        _create(idp, {**OKTA_USER, "userName": f"p{n}@x.test", "externalId": f"e{n}"})
    page = idp.send("get", "/scim/v2/Users?startIndex=2&count=1")
    assert page.doc["totalResults"] == 3 and page.doc["itemsPerPage"] == 1
    assert page.doc["startIndex"] == 2 and page.doc["Resources"][0]["userName"] == "p1@x.test"
    beyond = idp.send("get", "/scim/v2/Users?startIndex=99999999999999999999999&count=-5")
    assert beyond.status_code == 200 and beyond.doc["Resources"] == []
    everyone = idp.send("get", "/scim/v2/Users")
    assert "breakglass" not in {r["userName"] for r in everyone.doc["Resources"]}
    looked_up = idp.send("get", f"/scim/v2/Users?filter={_filter('userName', 'breakglass')}")
    assert looked_up.doc["totalResults"] == 0


def test_rfc7644_3_3_a_taken_username_is_409_uniqueness(idp):
    _create(idp, ENTRA_USER)
    again = idp.send(
        "post", "/scim/v2/Users", {**ENTRA_USER, "userName": ENTRA_USER["userName"].upper()}
    )
    assert again.status_code == 409
    assert again.doc["scimType"] == "uniqueness" and again.doc["schemas"] == [ERROR]


def test_rfc7644_3_5_2_okta_deactivation_ends_sessions_and_tokens(idp, client):
    scim_id, person = _create(idp, OKTA_USER)
    grants.set_role(person, "support")
    browser, other_tab = Client(), Client()
    browser.force_login(person)
    other_tab.force_login(person)
    assert browser.get("/mentions/").status_code == 200
    _, plain = tokens.issue(person, "laptop")
    api = Client(headers={"Authorization": f"Bearer {plain}"})
    assert api.get("/api/v1/endpoints").status_code == 200

    okta = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": False}}]}
    answer = idp.send("patch", f"/scim/v2/Users/{scim_id}", okta)

    assert answer.status_code == 200 and answer.doc["active"] is False
    assert not _fresh(person).is_active
    assert api.get("/api/v1/endpoints").status_code == 401
    signed_out = browser.get("/mentions/")
    assert signed_out.status_code == 302 and signed_out["Location"].startswith("/accounts/login/")
    assert AuditEvent.objects.filter(capability="scim.user_deactivate").exists()

    # Okta reactivates: the person may sign in again, but the old session and token stay over.
    again = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": True}}]}
    assert idp.send("patch", f"/scim/v2/Users/{scim_id}", again).doc["active"] is True
    person = _fresh(person)
    assert person.is_active and access_of(person).highest() == "support"
    assert api.get("/api/v1/endpoints").status_code == 401
    # A session that began before the deactivation is over even though the account is back.
    assert other_tab.get("/mentions/").status_code == 302
    browser.cookies.clear()
    browser.force_login(person)
    assert browser.get("/mentions/").status_code == 200


def test_rfc7644_3_5_2_3_entra_sends_active_as_a_string(idp):
    scim_id, person = _create(idp, ENTRA_USER)
    group = IdpGroup.objects.create(name="hermes-eu-support")
    Membership.objects.create(user=person, group=group, origin="scim")
    Membership.objects.create(user=person, group=group, origin="sso")
    entra = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "Replace", "path": "active", "value": "False"}],
    }
    assert idp.send("patch", f"/scim/v2/Users/{scim_id}", entra).status_code == 200
    assert not _fresh(person).is_active
    # The SCIM memberships go; what an SSO claim said is the SSO sign-in's to change.
    assert list(Membership.objects.filter(user=person).values_list("origin", flat=True)) == ["sso"]
    entra["Operations"][0]["value"] = "True"
    assert idp.send("patch", f"/scim/v2/Users/{scim_id}", entra).doc["active"] is True
    assert AuditEvent.objects.filter(capability="scim.user_reactivate").count() == 1


def test_rfc7644_3_5_2_entra_updates_name_and_email_by_path(idp):
    scim_id, person = _create(idp, ENTRA_USER)
    ops = [
        {"op": "Replace", "path": 'emails[type eq "work"].value', "value": "new@testuser.com"},
        {"op": "Replace", "path": "name.familyName", "value": "Updated"},
        {
            "op": "Add",
            "path": "urn:ietf:params:scim:schemas:extension:enterprise:2.0:User:department",
            "value": "x",
        },
    ]
    answer = idp.send(
        "patch", f"/scim/v2/Users/{scim_id}", {"schemas": [PATCH_OP], "Operations": ops}
    )
    assert answer.status_code == 200
    person = _fresh(person)
    assert (person.email, person.last_name) == ("new@testuser.com", "Updated")
    assert AuditEvent.objects.get(capability="scim.user_update").evidence["fields"] == [
        "emails",
        "name",
    ]


def test_rfc7644_3_5_1_put_replaces_the_person(idp):
    scim_id, person = _create(idp, OKTA_USER)
    body = {**OKTA_USER, "name": {"givenName": "Renamed"}, "emails": [], "active": False}
    answer = idp.send("put", f"/scim/v2/Users/{scim_id}", body)
    assert answer.status_code == 200
    person = _fresh(person)
    assert (person.first_name, person.last_name, person.email) == ("Renamed", "", "")
    assert not person.is_active


def test_rfc7644_3_6_delete_deactivates_and_the_id_is_gone(idp):
    scim_id, person = _create(idp, OKTA_USER)
    grants.set_role(person, "support")
    assert idp.send("delete", f"/scim/v2/Users/{scim_id}").status_code == 204
    person = _fresh(person)
    assert not person.is_active and access_of(person).highest() is None
    assert AuditEvent.objects.filter(capability="access.sessions_ended").count() == 1
    assert idp.send("get", f"/scim/v2/Users/{scim_id}").status_code == 404


# -- Groups -------------------------------------------------------------------------------


def test_rfc7644_3_5_2_group_membership_changes_what_access_of_gives(idp, settings):
    settings.HERMES_UI_GROUP_ROLES = {"hermes-eu-support": [("eu", "support", ())]}
    user_id, person = _create(idp, OKTA_USER)
    assert access_of(_fresh(person)).endpoint_ids() == []

    created = idp.send(
        "post",
        "/scim/v2/Groups",
        {"schemas": [GROUP], "displayName": "hermes-eu-support", "members": []},
    )
    assert created.status_code == 201 and created.doc["members"] == []
    group_id = created.doc["id"]
    okta_add = {
        "schemas": [PATCH_OP],
        "Operations": [
            {
                "op": "add",
                "path": "members",
                "value": [{"value": user_id, "display": OKTA_USER["userName"]}],
            }
        ],
    }
    added = idp.send("patch", f"/scim/v2/Groups/{group_id}", okta_add)
    assert added.status_code == 200 and [m["value"] for m in added.doc["members"]] == [user_id]
    assert access_of(_fresh(person)).endpoint_ids() == ["eu"]
    assert idp.send("get", f"/scim/v2/Users/{user_id}").doc["groups"][0]["value"] == group_id

    entra_remove = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "Remove", "path": f'members[value eq "{user_id}"]'}],
    }
    assert idp.send("patch", f"/scim/v2/Groups/{group_id}", entra_remove).status_code == 200
    assert access_of(_fresh(person)).endpoint_ids() == []
    assert (
        AuditEvent.objects.filter(capability__in=["scim.member_add", "scim.member_remove"]).count()
        == 2
    )


def test_rfc7644_3_4_2_2_entra_finds_a_group_by_display_name_and_removes_by_value(idp):
    user_id, person = _create(idp, ENTRA_USER)
    body = {
        "schemas": [GROUP],
        "externalId": "8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159",
        "displayName": "Support EU",
        "meta": {"resourceType": "Group"},
    }
    group_id = idp.send("post", "/scim/v2/Groups", body).doc["id"]
    found = idp.send(
        "get",
        f"/scim/v2/Groups?excludedAttributes=members&filter={_filter('displayName', 'support eu')}",
    )
    assert [g["id"] for g in found.doc["Resources"]] == [group_id]
    assert "members" not in found.doc["Resources"][0]

    def ops(op):
        return {
            "schemas": [PATCH_OP],
            "Operations": [{"op": op, "path": "members", "value": [{"value": user_id}]}],
        }

    idp.send("patch", f"/scim/v2/Groups/{group_id}", ops("Add"))
    assert Membership.objects.filter(user=person, group__name="Support EU", origin="scim").exists()
    idp.send("patch", f"/scim/v2/Groups/{group_id}", ops("Remove"))
    assert not Membership.objects.filter(user=person).exists()


def test_rfc7644_3_5_1_put_replaces_members_okta_renames_and_delete(idp, settings):
    a_id, _a = _create(idp, OKTA_USER)
    b_id, b = _create(idp, ENTRA_USER)
    group_id = idp.send(
        "post",
        "/scim/v2/Groups",
        {"schemas": [GROUP], "displayName": "team", "members": [{"value": a_id}]},
    ).doc["id"]
    put = idp.send(
        "put",
        f"/scim/v2/Groups/{group_id}",
        {"schemas": [GROUP], "displayName": "team", "members": [{"value": b_id}]},
    )
    assert [m["value"] for m in put.doc["members"]] == [b_id]
    assert list(IdpGroup.objects.get(name="team").members.all()) == [b]
    rename = {
        "schemas": [PATCH_OP],
        "Operations": [{"op": "replace", "value": {"id": group_id, "displayName": "team-2"}}],
    }
    assert idp.send("patch", f"/scim/v2/Groups/{group_id}", rename).doc["displayName"] == "team-2"
    assert idp.send("delete", f"/scim/v2/Groups/{group_id}").status_code == 204
    assert not IdpGroup.objects.filter(name__in=["team", "team-2"]).exists()
    assert idp.send("get", f"/scim/v2/Groups/{group_id}").status_code == 404


def test_deleting_a_group_an_admin_granted_keeps_the_grant(idp):
    group_id = idp.send(
        "post", "/scim/v2/Groups", {"schemas": [GROUP], "displayName": "auditors"}
    ).doc["id"]
    grants.grant("eu", "reviewer", group=IdpGroup.objects.get(name="auditors"))
    assert idp.send("delete", f"/scim/v2/Groups/{group_id}").status_code == 204
    assert IdpGroup.objects.get(name="auditors").grants.count() == 1
    # Created again, SCIM adopts it with its grant.
    again = idp.send("post", "/scim/v2/Groups", {"schemas": [GROUP], "displayName": "auditors"})
    assert again.status_code == 201 and IdpGroup.objects.get(name="auditors").grants.count() == 1


# -- The door and bad input ---------------------------------------------------------------


def test_rfc7644_3_12_a_wrong_or_missing_token_is_401_and_no_cookie_counts(idp, login):
    for headers in ({}, {"Authorization": "Bearer nope"}, {"Authorization": TOKEN}):
        answer = Client(headers=headers).get("/scim/v2/Users")
        assert answer.status_code == 401
        assert answer.json()["schemas"] == [ERROR] and answer.json()["status"] == "401"
        assert answer["WWW-Authenticate"].startswith("Bearer")
    signed_in_admin = login("admin")
    refused = signed_in_admin.post(
        "/scim/v2/Users", OKTA_USER, content_type="application/scim+json"
    )
    assert refused.status_code == 401 and not refused.cookies
    assert not get_user_model().objects.filter(username=OKTA_USER["userName"]).exists()
    answer = idp.send("post", "/scim/v2/Users", OKTA_USER)  # no CSRF token needed
    assert answer.status_code == 201 and not answer.cookies


def test_scim_is_off_without_a_token(idp, settings):
    settings.HERMES_UI_SCIM_TOKEN = None
    assert idp.get("/scim/v2/Users").status_code == 404
    assert (
        idp.post("/scim/v2/Users", OKTA_USER, content_type="application/scim+json").status_code
        == 404
    )
    assert not get_user_model().objects.filter(username=OKTA_USER["userName"]).exists()


@pytest.mark.parametrize(
    "method,path,body",
    [
        ("post", "/scim/v2/Users", "{not json"),
        ("post", "/scim/v2/Users", "[1, 2]"),
        ("post", "/scim/v2/Users", '{"userName": ""}'),
        ("post", "/scim/v2/Users", '{"userName": "x", "emails": [{"value": "not-mail"}]}'),
        ("post", "/scim/v2/Users", '{"userName": "x", "active": "maybe"}'),
        ("post", "/scim/v2/Groups", '{"displayName": "g", "members": [{"value": "nobody"}]}'),
        ("get", "/scim/v2/Users?filter=userName%20eq", None),
        ("get", "/scim/v2/Users?filter=title%20eq%20%22x%22", None),
        ("get", "/scim/v2/Users?count=ten", None),
    ],
)
def test_bad_input_is_a_400_scim_error(idp, method, path, body):
    kwargs = {"data": body, "content_type": "application/scim+json"} if body is not None else {}
    answer = getattr(idp, method)(path, **kwargs)
    assert answer.status_code == 400, answer.content
    assert answer.json()["schemas"] == [ERROR]


def test_bad_patch_operations_are_400(idp):
    scim_id, _ = _create(idp, OKTA_USER)
    for ops in (
        [{"op": "move", "path": "active", "value": False}],
        [{"op": "remove"}],
        [{"op": "replace", "path": "active", "value": "nope"}],
        "not a list",
    ):
        answer = idp.send(
            "patch", f"/scim/v2/Users/{scim_id}", {"schemas": [PATCH_OP], "Operations": ops}
        )
        assert answer.status_code == 400, (ops, answer.content)
    assert _fresh(_).is_active


def test_rfc7643_5_service_provider_config_says_what_is_supported(idp):
    answer = idp.send("get", "/scim/v2/ServiceProviderConfig")
    assert answer.status_code == 200
    assert answer.doc["patch"]["supported"] and answer.doc["filter"]["supported"]
    assert not answer.doc["bulk"]["supported"] and not answer.doc["changePassword"]["supported"]
    assert answer.doc["authenticationSchemes"][0]["type"] == "oauthbearertoken"
    types = idp.send("get", "/scim/v2/ResourceTypes")
    assert {t["endpoint"] for t in types.doc["Resources"]} == {"/scim/v2/Users", "/scim/v2/Groups"}


def test_rfc7644_3_4_2_2_entra_asks_whether_a_person_is_in_a_group(idp):
    user_id, person = _create(idp, ENTRA_USER)
    group_id = idp.send("post", "/scim/v2/Groups", {"schemas": [GROUP], "displayName": "g"}).doc[
        "id"
    ]
    query = quote(f'id eq "{group_id}" and members[value eq "{user_id}"]')
    path = f"/scim/v2/Groups?excludedAttributes=members&filter={query}"
    assert idp.send("get", path).doc["totalResults"] == 0
    # A membership from an SSO claim is not a SCIM membership.
    Membership.objects.create(user=person, group=IdpGroup.objects.get(name="g"), origin="sso")
    assert idp.send("get", path).doc["totalResults"] == 0
    add = {"op": "add", "path": "members", "value": [{"value": user_id}]}
    idp.send("patch", f"/scim/v2/Groups/{group_id}", {"schemas": [PATCH_OP], "Operations": [add]})
    assert idp.send("get", path).doc["totalResults"] == 1


def test_rfc7644_3_4_2_2_an_unknown_attribute_never_widens_a_filter(idp):
    _create(idp, OKTA_USER)
    urn = quote(f'{USER}:userName eq "{OKTA_USER["userName"]}"')
    assert idp.send("get", f"/scim/v2/Users?filter={urn}").doc["totalResults"] == 1
    wider = quote(f'userName eq "{OKTA_USER["userName"]}" and title eq "nobody"')
    answer = idp.send("get", f"/scim/v2/Users?filter={wider}")
    assert answer.status_code == 400 and answer.doc["scimType"] == "invalidFilter"


def test_a_body_over_the_upload_limit_is_413(idp, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    answer = idp.send("post", "/scim/v2/Users", {**OKTA_USER, "displayName": "x" * 2000})
    assert answer.status_code == 413 and answer.doc["schemas"] == [ERROR]


def test_okta_externalid_is_the_sso_subject_so_one_person_has_one_account(idp, django_user_model):
    from allauth.socialaccount.models import SocialAccount

    from hermes_ui.sso.config import PROVIDER_ID

    # Provisioned first: the account is linked, so the first sign-in lands on it.
    _, person = _create(idp, OKTA_USER)
    link = SocialAccount.objects.get(provider=PROVIDER_ID, uid=OKTA_USER["externalId"])
    assert link.user == person
    # Signed in by SSO first: provisioning adopts that account instead of making a second.
    earlier = django_user_model.objects.create_user("sso-made-name")
    earlier.set_unusable_password()
    earlier.save()
    SocialAccount.objects.create(user=earlier, provider=PROVIDER_ID, uid="00u-signed-in-first")
    body = {**OKTA_USER, "userName": "first@okta.local", "externalId": "00u-signed-in-first"}
    scim_id, adopted = _create(idp, body)
    assert adopted.pk == earlier.pk
    grants.set_role(adopted, "support")
    okta = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": False}}]}
    idp.send("patch", f"/scim/v2/Users/{scim_id}", okta)
    assert not _fresh(earlier).is_active  # the account they sign in with is the one ended


def test_logs_carry_neither_the_token_nor_who_was_provisioned(idp, caplog):
    caplog.set_level("DEBUG")
    Client(headers={"Authorization": f"Bearer {TOKEN}x"}).get("/scim/v2/Users")
    scim_id, _ = _create(idp, OKTA_USER)
    idp.send("get", f"/scim/v2/Users?filter={_filter('userName', OKTA_USER['userName'])}")
    off = {"schemas": [PATCH_OP], "Operations": [{"op": "replace", "value": {"active": False}}]}
    idp.send("patch", f"/scim/v2/Users/{scim_id}", off)
    assert "scim request refused: wrong Authorization" in caplog.text
    assert f"scim user_deactivate scim_id={scim_id}" in caplog.text
    for secret in (TOKEN, OKTA_USER["userName"], OKTA_USER["password"], "test.user"):
        assert secret not in caplog.text


def test_rfc7644_3_4_3_search_by_post(idp):
    _create(idp, OKTA_USER)
    body = {
        "schemas": ["urn:ietf:params:scim:api:messages:2.0:SearchRequest"],
        "filter": f'userName eq "{OKTA_USER["userName"]}"',
    }
    answer = idp.send("post", "/scim/v2/Users/.search", body)
    assert answer.status_code == 200 and answer.doc["totalResults"] == 1
    assert idp.send("post", "/scim/v2/Users/.search", {"filter": "x"}).status_code == 400
