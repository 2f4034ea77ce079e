"""Fixtures of the SCIM tests: SCIM on, and a client holding the identity provider's bearer."""

import pytest
from django.test import Client

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
def idp(db, settings, eu_us):
    settings.HERMES_UI_SCIM_TOKEN = TOKEN
    return Idp(headers={"Authorization": f"Bearer {TOKEN}"})
