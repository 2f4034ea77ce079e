"""Fixtures of the share tests: a session with secrets and hostile text in the fake Hermes."""

import pytest
from django.test import Client

from hermes_ui.access.models import Grant
from hermes_ui.deletion import clock as deletion_clock
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import PASSWORD, TEST_KEY
from tests.deletion.conftest import FakeClock

SID = "share-me-1"
EMAIL = "jane.doe@example.com"
API_KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx1234"
HOSTILE_TITLE = '<script>alert("title")</script> Refund for jane.doe@example.com'
HOSTILE_TEXT = '<img src=x onerror=alert(1)><a href="javascript:alert(2)">click</a>'


@pytest.fixture
def shared_session(fake_hermes):
    """A session whose title and messages hold an e-mail address, an API key and markup."""
    fake_hermes.add(SID, title=HOSTILE_TITLE, source="telegram")
    first, second = fake_hermes.messages[SID]
    first["content"] = f"Please mail {EMAIL}; my key is {API_KEY}."
    second["content"] = f"Echo: {HOSTILE_TEXT}"
    return fake_hermes


@pytest.fixture
def stranger(db, django_user_model, mock_endpoint, settings):
    """Support on another configured endpoint only: may not see ``local``."""
    elsewhere = Endpoint("elsewhere", "http://elsewhere.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {**settings.HERMES_ENDPOINTS, "elsewhere": elsewhere}
    user = django_user_model.objects.create_user("stranger", password=PASSWORD)
    Grant.objects.create(user=user, endpoint="elsewhere", role="support")
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def share_clock(monkeypatch):
    fake = FakeClock()
    monkeypatch.setattr(deletion_clock, "now", fake)
    return fake
