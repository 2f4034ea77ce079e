"""Fixtures of the SCIM tests: SCIM on, and a client holding the identity provider's bearer."""

import pytest
from django.test import Client

from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY

TOKEN = "scim-test-token-0123456789abcdefghijklmnop"
SCIM_JSON = "application/scim+json"


class Idp(Client):
    """The identity provider: JSON bodies as ``application/scim+json``, answers decoded."""

    def send(self, method, path, body=None, **extra):
        kwargs = {"content_type": SCIM_JSON} if body is not None else {}
        answer = (
            getattr(self, method)(path, body, **kwargs, **extra)
            if body is not None
            else (getattr(self, method)(path, **extra))
        )
        answer.doc = answer.json() if answer.content else None
        return answer


@pytest.fixture
def two_endpoints(settings):
    eu = Endpoint("eu", "http://eu.test", TEST_KEY)
    us = Endpoint("us", "http://us.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"eu": eu, "us": us}
    settings.HERMES_ENDPOINT_ID = "eu"
    return eu, us


@pytest.fixture
def idp(db, settings, two_endpoints):
    settings.HERMES_UI_SCIM_TOKEN = TOKEN
    return Idp(headers={"Authorization": f"Bearer {TOKEN}"})
