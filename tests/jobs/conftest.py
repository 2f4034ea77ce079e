"""Sessions of the shared real peer for job tests, and a gate in front of it."""

import secrets

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient, use_transport
from tests.jobs.helpers import Gate


@pytest.fixture
def make_sessions(peer_endpoint):
    """``make_sessions(n)``: n new sessions on the shared peer; their ids."""
    client = HermesClient(peer_endpoint)

    def make(n: int, prefix: str = "job") -> list[str]:
        ids = [f"{prefix}-{secrets.token_hex(4)}" for _ in range(n)]
        for session_id in ids:
            client.create_session(idempotency_key=mint_key(), session_id=session_id)
        return ids

    yield make
    client.close()


@pytest.fixture
def gate(peer_endpoint):
    """A gate holding nothing yet: set ``gate.held``; opened at the end whatever happens."""
    held = Gate(lambda request: False)
    with use_transport(held):
        yield held
        held.open()


def read(endpoint, session_id: str):
    client = HermesClient(endpoint)
    try:
        return client.get_session(session_id)
    finally:
        client.close()
