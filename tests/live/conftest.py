"""The live tests' own peer: they add, rename and close sessions on it."""

import pytest

from tests.peers import endpoint_for, running_peer


@pytest.fixture(scope="package")
def live_peer(tmp_path_factory):
    with running_peer(tmp_path_factory.mktemp("live-peer"), seed="demo") as peer:
        yield peer


@pytest.fixture
def live_endpoint(settings, live_peer):
    return endpoint_for(settings, live_peer)
