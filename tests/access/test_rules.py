"""The one rule: grants per endpoint and source, and the door of every /e/<endpoint>/ route."""

import pytest
from django.db.models import Q
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.access.ending import end_sessions
from hermes_ui.access.models import Grant
from hermes_ui.access.rules import access_of, forget
from hermes_ui.hermes.client import use_transport
from hermes_ui.index.models import IndexedSession
from tests.support.samples import Recorder, indexed_row


@pytest.fixture
def person(db, django_user_model):
    return django_user_model.objects.create_user("pat", password="a-long-password-1")


def test_highest_grant_on_an_endpoint_wins_and_stars_cover_all(eu_us, person):
    grants.grant("eu", "support", user=person)
    grants.grant("*", "reviewer", ["cron"], user=person)
    access = access_of(person)
    assert access.role_on("eu", "telegram") == "support"
    assert access.role_on("eu", "cron") == "reviewer"
    assert access.role_on("us", "telegram") is None
    assert access.role_on("us", "cron") == "reviewer"
    assert access.role_on("us", any_source=True) == "reviewer"
    assert access.source_limited("us") and not access.source_limited("eu")
    assert access.endpoint_ids() == ["eu", "us"]
    assert not access.instance_admin and not access.everything


def test_a_group_grant_reaches_its_members_only(eu_us, person, django_user_model):
    from hermes_ui.access.models import IdpGroup, Membership

    group = IdpGroup.objects.create(name="hermes-eu-support")
    grants.grant("eu", "support", group=group)
    other = django_user_model.objects.create_user("other")
    Membership.objects.create(user=person, group=group, origin="sso")
    assert access_of(person).role_on("eu") == "support"
    assert access_of(other).role_on("eu") is None


def test_session_q_keeps_only_what_the_person_may_see(eu_us, person):
    for ep, sid, source in [("eu", "a", "cron"), ("eu", "b", "telegram"), ("us", "c", "cron")]:
        indexed_row(ep, sid, source)
    grants.grant("eu", "support", ["cron"], user=person)
    seen = IndexedSession.objects.filter(access_of(person).session_q())
    assert sorted(seen.values_list("session_id", flat=True)) == ["a"]
    grants.grant("us", "reviewer", user=person)
    forget(person)
    seen = IndexedSession.objects.filter(access_of(person).session_q("reviewer"))
    assert sorted(seen.values_list("session_id", flat=True)) == ["c"]


def test_an_endpoint_without_a_grant_answers_as_one_nobody_configured(eu_us, person):
    grants.grant("eu", "support", user=person)
    client = Client()
    client.force_login(person)
    hidden = client.get("/e/us/sessions/")
    unknown = client.get("/e/nowhere/sessions/")
    assert hidden.status_code == unknown.status_code == 404
    assert b"&#x27;us&#x27;" in hidden.content and b"&#x27;nowhere&#x27;" in unknown.content

    def main(answer):  # the page's own part: the head carries a fresh CSP nonce each time
        html = answer.content.decode()
        return html[html.index("<main") :]

    assert main(hidden).replace("&#x27;us&#x27;", "&#x27;nowhere&#x27;") == main(unknown)


def test_a_session_of_another_source_answers_as_missing(eu_us, person):
    recorder = Recorder()
    indexed_row("eu", "secret-1", "telegram")
    grants.grant("eu", "support", ["cron"], user=person)
    client = Client()
    client.force_login(person)
    with use_transport(recorder.transport):
        answer = client.get("/e/eu/sessions/secret-1/")
    assert answer.status_code == 404
    assert b"Session not found" in answer.content
    assert not recorder.requests  # refused at the door: Hermes was never asked


def test_migrated_global_role_and_set_role_are_one_grant_on_star(eu_us, person):
    grants.set_role(person, "reviewer")
    grants.set_role(person, "admin")
    assert list(Grant.objects.values_list("endpoint", "role")) == [("*", "admin")]
    forget(person)
    assert access_of(person).instance_admin


def test_ended_access_signs_the_session_out(eu_us, person):
    grants.set_role(person, "support")
    client = Client()
    client.force_login(person)
    assert client.get("/mentions/").status_code == 200
    end_sessions(person, reason="test")
    answer = client.get("/mentions/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")


def test_the_settings_group_map_gives_its_groups_members_their_roles(eu_us, person, settings):
    from hermes_ui.access.models import IdpGroup, Membership

    settings.HERMES_UI_GROUP_ROLES = {"hermes-eu-cron": [("eu", "reviewer", ("cron",))]}
    group = IdpGroup.objects.create(name="hermes-eu-cron")
    assert access_of(person).highest() is None
    forget(person)
    Membership.objects.create(user=person, group=group, origin="scim")
    access = access_of(person)
    assert access.role_on("eu", "cron") == "reviewer"
    assert access.role_on("eu", "telegram") is None and access.role_on("us", "cron") is None


def test_a_source_grant_raises_the_role_only_on_sessions_of_that_source(eu_us, person):
    from django.test import RequestFactory

    from hermes_ui.access.rules import role_here
    from hermes_ui.access.scope import check

    indexed_row("eu", "from-cron", "cron")
    indexed_row("eu", "from-cli", "cli")
    from hermes_ui.access.models import IdpGroup, Membership

    # Support on the whole endpoint of their own, reviewer on its cron sessions by a group.
    grants.grant("eu", "support", user=person)
    cron_reviewers = IdpGroup.objects.create(name="cron-reviewers")
    grants.grant("eu", "reviewer", ["cron"], group=cron_reviewers)
    Membership.objects.create(user=person, group=cron_reviewers, origin="scim")

    def role_for(session_id):
        request = RequestFactory().get("/")
        request.user = person
        check(request, "eu", session_id)
        return role_here(request, "eu")

    assert role_for("from-cron") == "reviewer"
    assert role_for("from-cli") == "support"
    assert role_for(None) == "support"  # the endpoint's own pages: the whole-endpoint role


def test_ended_access_without_any_grant_left_signs_out_rather_than_refusing(eu_us, person):
    grants.set_role(person, "support")
    client = Client()
    client.force_login(person)
    assert client.get("/mentions/").status_code == 200
    grants.revoke("*", user=person)  # what the provider gave is gone, and then:
    end_sessions(person, reason="test")
    answer = client.get("/mentions/")
    assert answer.status_code == 302 and answer["Location"].startswith("/accounts/login/")
    assert client.get("/healthz").status_code == 200


def test_session_q_on_one_endpoint_is_its_sources_only(eu_us, person):
    indexed_row("eu", "a", "cron")
    indexed_row("eu", "b", "telegram")
    grants.grant("eu", "support", ["cron"], user=person)
    grants.grant("us", "support", user=person)
    access = access_of(person)
    assert access.session_q(only_endpoint="eu") == Q(source__in=["cron"])
    assert access.session_q(only_endpoint="us") == Q()
    rows = IndexedSession.objects.filter(endpoint="eu")
    assert [r.session_id for r in rows.filter(access.session_q(only_endpoint="eu"))] == ["a"]
