"""A seeded peer of their own for the compare and export tests.

Those tests fork sessions and chat turns into new ones; an API fork changes
how Hermes resolves the parent's transcript, which checks of other areas over
the whole shared database would trip over. Import the fixtures into a conftest.
"""

import pytest

from hermes_ui.hermes.client import HermesClient
from tests.conftest import endpoint_for
from tests.peers import running_peer


@pytest.fixture(scope="package")
def review_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("review-peer"), seed="demo") as peer:
        yield peer


@pytest.fixture
def peer_endpoint(settings, review_peer):
    return endpoint_for(settings, review_peer)


@pytest.fixture
def peer(peer_endpoint):
    """A client for arranging state on the real peer directly (not through the views)."""
    client = HermesClient(peer_endpoint)
    yield client
    client.close()
