"""Peers of older hermes-agent releases (the release matrix): defined in tests/support/peers.py."""

from tests.support.peers import peer_0152, release_endpoint, release_peer, too_old_peer  # noqa: F401
