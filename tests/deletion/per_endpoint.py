"""Two endpoints and people with grants on one of them (issue 48), for the page tests of
deletion, retention, audit, jobs and endpoint status.

"eu" holds a cli session everyone with a grant there sees and a telegram session (a
canary for the person limited to cli); "us" holds canaries only. Each Hermes is a
``FakeHermes`` behind one transport that routes by host.
"""

import httpx
import pytest
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.hermes.client import use_transport
from hermes_ui.index import sync
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.fakes import FakeHermes

US_ID, US_TITLE = "us-canary-5d1", "Canary of the US team"
TG_ID, TG_TITLE = "eu-tg-canary-9b2", "Canary of telegram"
CANARIES = (US_ID, US_TITLE, TG_ID, TG_TITLE)
EU_ID, EU_TITLE = "eu-cli-1", "An ordinary cli session"
# A cli session with a subagent delegate: deleting it deletes the delegate too.
PARENT_ID, SUB_ID = "eu-cli-parent", "eu-subagent-canary-3c4"


def assert_no_canary(html: str, *canaries: str) -> None:
    for canary in canaries or CANARIES:
        assert canary not in html, canary


@pytest.fixture
def two_fakes(settings, db):
    eu = Endpoint("eu", "http://eu.test", TEST_KEY)
    us = Endpoint("us", "http://us.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"eu": eu, "us": us}
    settings.HERMES_ENDPOINT_ID = "eu"
    fakes = {"eu.test": FakeHermes(), "us.test": FakeHermes()}
    fakes["eu.test"].add(EU_ID, at=100.0, title=EU_TITLE)
    fakes["eu.test"].add(TG_ID, at=110.0, source="telegram", title=TG_TITLE)
    fakes["eu.test"].add(PARENT_ID, at=130.0, title="A parent")
    fakes["eu.test"].add(SUB_ID, at=131.0, parent=PARENT_ID, source="subagent")
    fakes["us.test"].add(US_ID, at=120.0, title=US_TITLE)
    transport = httpx.MockTransport(lambda request: fakes[request.url.host](request))
    with use_transport(transport):
        sync.sync(eu, full=True)
        sync.sync(us, full=True)
        yield eu, us


# name: [(endpoint, role, sources)]
PEOPLE = {
    "root": [("*", "admin", [])],
    "eu_support": [("eu", "support", [])],
    "eu_admin": [("eu", "admin", [])],
    "eu_admin2": [("eu", "admin", [])],
    "us_admin": [("us", "admin", [])],
    "eu_cli": [("eu", "support", ["cli"])],
    "eu_cli_admin": [("eu", "admin", ["cli"])],
}


@pytest.fixture
def endpoint_people(db, django_user_model):
    made = {}
    for name, given in PEOPLE.items():
        user = django_user_model.objects.create_user(name)
        for endpoint, role, sources in given:
            grants.grant(endpoint, role, sources, user=user)
        made[name] = user
    return made


@pytest.fixture
def as_(endpoint_people):
    """``as_("eu_admin")``: a client signed in as that person."""

    def client(name: str) -> Client:
        made = Client()
        made.force_login(endpoint_people[name])
        return made

    return client
