"""Two teams on one Hermes: a profile each, an endpoint each, a grant per team (issue 48).

The real 0.19.0 server multiplexes the profiles ``support`` and ``sales``; each
team's person is granted support on their profile's endpoint only, and the
other team's endpoint, sessions and titles do not exist for them.
"""

import re

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from hermes_ui.access import grants
from hermes_ui.web.links import session_url
from tests.support.peers import index, make

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


@pytest.fixture
def sales_person(django_user_model, profile_endpoints):
    person = django_user_model.objects.create_user("sales-team")
    grants.grant("sales", "support", user=person)
    client = Client()
    client.force_login(person)
    return client


def test_a_team_sees_its_profile_and_nothing_of_the_other(profile_endpoints, sales_person):
    make(profile_endpoints["support"], "team-support-1", title="Support team secret")
    make(profile_endpoints["sales"], "team-sales-1", title="Sales team work")
    index(profile_endpoints["support"])
    index(profile_endpoints["sales"])

    own = sales_person.get(reverse("session_list", kwargs={"endpoint": "sales"}))
    assert own.status_code == 200 and "Sales team work" in own.content.decode()
    assert "Support team secret" not in own.content.decode()
    # The menu offers only the team's endpoint.
    assert not re.search(r'href="/e/support/', own.content.decode())

    for url in (
        reverse("session_list", kwargs={"endpoint": "support"}),
        session_url("support", "team-support-1"),
        reverse("lineage_page", kwargs={"endpoint": "support", "session_id": "team-support-1"}),
    ):
        answer = sales_person.get(url)
        assert answer.status_code == 404, url
        assert "Support team secret" not in answer.content.decode()
    # The other profile's session asked for under one's own endpoint: Hermes has none.
    assert sales_person.get(session_url("sales", "team-support-1")).status_code == 404


def test_the_endpoints_page_lists_only_the_teams_profile(profile_endpoints, sales_person):
    cache.clear()
    html = sales_person.get(reverse("endpoint_list")).content.decode()
    assert 'id="endpoint-sales"' in html and 'id="endpoint-support"' not in html
