"""Two real Hermes peers at once (two Hermes homes), configured as endpoints ``a`` and ``b``."""

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from tests.peers import running_peer, unreachable_url


@pytest.fixture(scope="package")
def two_peers(tmp_path_factory):
    with (
        running_peer(tmp_path_factory.mktemp("operate-a")) as a,
        running_peer(tmp_path_factory.mktemp("operate-b")) as b,
    ):
        yield a, b


@pytest.fixture
def endpoints(settings, two_peers):
    """``a`` and ``b`` point at the two peers; ``down`` at an address nobody answers."""
    peer_a, peer_b = two_peers
    table = {
        "a": Endpoint("a", peer_a.base_url, peer_a.key),
        "b": Endpoint("b", peer_b.base_url, peer_b.key),
    }
    settings.HERMES_ENDPOINTS = table
    settings.HERMES_ENDPOINT_ID = "a"
    return table


@pytest.fixture
def with_down(settings, endpoints):
    down = Endpoint("down", unreachable_url(), "d" * 24)
    settings.HERMES_ENDPOINTS = {**endpoints, "down": down}
    return down


def make(endpoint: Endpoint, session_id: str, title: str | None = None, chat: bool = False):
    client = HermesClient(endpoint)
    try:
        client.create_session(idempotency_key=mint_key(), session_id=session_id,
                              title=title or session_id)  # fmt: skip
        if chat:
            client.chat(session_id, message="hello")
        return client.get_session(session_id)
    finally:
        client.close()


def read(endpoint: Endpoint, session_id: str):
    client = HermesClient(endpoint)
    try:
        return client.get_session(session_id)
    finally:
        client.close()


def index(endpoint: Endpoint) -> None:
    report = sync.sync(endpoint, full=True)
    assert not report.error_code, report.error_code
