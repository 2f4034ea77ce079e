"""Peers of older hermes-agent releases (the release matrix, docs/hermes-releases.md).

Each release runs from its own cached virtualenv (``.peer-venv-<version>``,
installed on first use). ``release_peer`` is one seeded peer per release and
package; tests that destroy seeded lineage start their own.
"""

import pytest

from tests.peers import endpoint_for, running_peer

SMOKE_RELEASES = ("0.15.2", "0.17.0")
TOO_OLD = "0.13.0"


@pytest.fixture(scope="package", params=SMOKE_RELEASES)
def release_peer(request, tmp_path_factory):
    with running_peer(
        tmp_path_factory.mktemp(f"release-{request.param}"), seed="demo", version=request.param
    ) as peer:
        peer.version = request.param
        yield peer


@pytest.fixture
def release_endpoint(settings, release_peer):
    return endpoint_for(settings, release_peer)


@pytest.fixture
def peer_0152(tmp_path):
    """A freshly seeded 0.15.2 peer for a destructive test (its DELETE does not cascade)."""
    with running_peer(tmp_path / "hermes-0.15.2", seed="demo", version="0.15.2") as peer:
        yield peer


@pytest.fixture(scope="package")
def too_old_peer(tmp_path_factory):
    """hermes-agent 0.13.0: an API server without the session routes."""
    with running_peer(tmp_path_factory.mktemp("release-too-old"), version=TOO_OLD) as peer:
        yield peer
