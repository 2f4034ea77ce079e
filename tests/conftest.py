import pytest
from django.test import Client

from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes.client import use_transport
from hermes_ui.roles import set_role
from tests.samples import Recorder

TEST_KEY = "test-key-0123456789abcdef"
PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def mock_endpoint(settings):
    endpoint = Endpoint("local", "http://hermes.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    settings.HERMES_ENDPOINT_ID = "local"
    return endpoint


@pytest.fixture
def recorder(mock_endpoint):
    """Answers every Hermes call from a route table; tests fill ``recorder.routes``."""
    rec = Recorder()
    with use_transport(rec.transport):
        yield rec


@pytest.fixture
def users(db, django_user_model):
    made = {}
    for name, role in [("support", "support"), ("reviewer", "reviewer"), ("admin", "admin"),
                       ("admin2", "admin")]:  # fmt: skip
        user = django_user_model.objects.create_user(name, password=PASSWORD)
        set_role(user, role)
        made[name] = user
    return made


@pytest.fixture
def login(users):
    def _login(name: str) -> Client:
        client = Client()
        client.force_login(users[name])
        return client

    return _login
