"""Two endpoints and the people of issue 48, shared by the one-rule tests of review,
notifications, live and webhooks.

``eu`` holds a cron session (``EU_CRON``) and a telegram session whose id and
title are canaries (``EU_HIDDEN``); ``us`` holds one more canary (``US_HIDDEN``).
``pat`` reviews ``eu``'s cron sessions only; ``eve`` reviews all of ``eu``;
``ursula`` reviews ``us`` only; ``euadmin`` administers ``eu``; ``root`` is
admin on ``*``.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from hermes_ui.access import grants
from hermes_ui.hermes.client import use_transport
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.fakes import FakeHermes
from tests.support.samples import indexed_row

CANARY = "CANARY"
EU_CRON = "eu-cron-1"
EU_HIDDEN = "eu-tg-CANARY-7e1"
US_HIDDEN = "us-cron-CANARY-2b9"
PEOPLE = {
    "pat": [("eu", "reviewer", ["cron"])],
    "eve": [("eu", "reviewer", [])],
    "ursula": [("us", "reviewer", [])],
    "euadmin": [("eu", "admin", [])],
    "root": [("*", "admin", [])],
}


@dataclass
class World:
    eu: Endpoint
    us: Endpoint
    fake: FakeHermes
    people: dict

    def client(self, name: str) -> Client:
        client = Client()
        client.force_login(self.people[name])
        return client


def _index(ep: Endpoint, session_id: str, source: str, title: str) -> None:
    indexed_row(ep.id, session_id, source, title=title, endpoint_fp=ep.scope()["endpoint_fp"])


def build(settings) -> World:
    """Endpoints, index rows and people (call inside a test with database access)."""
    eu = Endpoint("eu", "http://eu.test", TEST_KEY)
    us = Endpoint("us", "http://us.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"eu": eu, "us": us}
    settings.HERMES_ENDPOINT_ID = "eu"
    fake = FakeHermes()
    fake.add(EU_CRON, source="cron", title="eu cron work")
    fake.add(EU_HIDDEN, source="telegram", title=f"{CANARY} telegram title")
    fake.add(US_HIDDEN, source="cron", title=f"{CANARY} us title")
    _index(eu, EU_CRON, "cron", "eu cron work")
    _index(eu, EU_HIDDEN, "telegram", f"{CANARY} telegram title")
    _index(us, US_HIDDEN, "cron", f"{CANARY} us title")
    people = {}
    for name, held in PEOPLE.items():
        person = get_user_model().objects.create_user(
            name, password="a-long-password-1", email=f"{name}@example.test"
        )
        for endpoint, role, sources in held:
            grants.grant(endpoint, role, sources, user=person)
        people[name] = person
    return World(eu, us, fake, people)


@pytest.fixture
def review_world(settings, db):
    made = build(settings)
    with use_transport(made.fake.transport):
        yield made
