"""Real Hermes peers for the suite (hermes-agent 0.19.0 in .peer-venv, the stub model).

Every fixture that needs a peer of its own starts it here, so each one is
started, waited for and stopped the same way.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from devtools.peer.launcher import Peer, PeerConfig, ensure_peer_venv, free_port, run_seed
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync


@contextmanager
def running_peer(home: Path, *, seed: str | None = None, **config) -> Iterator[Peer]:
    """A healthy peer in ``home`` (its database seeded with profile ``seed`` when
    given), stopped on the way out. ``config`` goes to ``PeerConfig``."""
    python = ensure_peer_venv()
    if seed:
        run_seed(home, seed, peer_python=python)
    peer = Peer(PeerConfig(home=home, peer_python=python, **config))
    try:
        peer.start()
        peer.wait_healthy(60)
        yield peer
    finally:
        peer.stop()


def unreachable_url() -> str:
    """An address nobody listens on: Hermes is down."""
    return f"http://127.0.0.1:{free_port()}"


def unreachable(settings, key: str = "k" * 24) -> Endpoint:
    """Point the ``local`` endpoint at :func:`unreachable_url`."""
    endpoint = Endpoint("local", unreachable_url(), key)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    return endpoint


# -- two peers at once, endpoints ``a`` and ``b`` (bulk, endpoint status, verification) --
# Import the fixtures into a package conftest: ``two_peers`` is then one pair per package.


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
