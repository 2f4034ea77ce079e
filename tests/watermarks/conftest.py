"""The watermark tests' own peer (no seed: every test makes its sessions, chats and deletes)."""

import pytest

from hermes_ui.hermes.client import HermesClient
from tests.peers import endpoint_for, running_peer


@pytest.fixture(scope="package")
def triage_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("triage-peer")) as peer:
        yield peer


@pytest.fixture
def triage_endpoint(settings, triage_peer):
    return endpoint_for(settings, triage_peer)


@pytest.fixture
def triage_client(triage_endpoint):
    client = HermesClient(triage_endpoint)
    yield client
    client.close()
