import pytest
from django.test import Client

from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes.client import use_transport
from hermes_ui.web.roles import set_role
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


# -- the real Hermes peer -------------------------------------------------------
# Started once per run (hermes-agent 0.19.0 in .peer-venv, the stub model, the
# demo seed). Tests that change data create their own sessions; tests that
# destroy seeded data ask for ``fresh_peer``.


def _start_peer(home, **config):
    from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, run_seed

    python = ensure_peer_venv()
    run_seed(home, "demo", peer_python=python)
    peer = Peer(PeerConfig(home=home, peer_python=python, **config))
    peer.start()
    peer.wait_healthy(60)
    return peer


@pytest.fixture(scope="session")
def hermes_peer(tmp_path_factory):
    peer = _start_peer(tmp_path_factory.mktemp("hermes-peer"))
    yield peer
    peer.stop()


@pytest.fixture
def fresh_peer(tmp_path):
    """A peer with its own freshly seeded database, for destructive tests."""
    peer = _start_peer(tmp_path / "hermes-home")
    yield peer
    peer.stop()


def endpoint_for(settings, peer):
    endpoint = Endpoint("local", peer.base_url, peer.key)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    settings.HERMES_ENDPOINT_ID = "local"
    return endpoint


@pytest.fixture
def peer_endpoint(settings, hermes_peer):
    return endpoint_for(settings, hermes_peer)


# -- browser tests ----------------------------------------------------------------


@pytest.fixture(scope="session")
def dashboard(tmp_path_factory, hermes_peer):
    from tests.browser import DashboardServer

    server = DashboardServer(tmp_path_factory.mktemp("ui-data"), hermes_peer).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    from tests.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    context = chromium.new_context(viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()


def pytest_collection_modifyitems(config, items):
    """Browser tests run last: Playwright's sync API leaves an event loop running
    in the main thread, after which Django's ORM and asyncio.run() refuse to run."""
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)
