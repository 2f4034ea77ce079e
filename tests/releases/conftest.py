"""Peers of older hermes-agent releases (the release matrix): defined in tests/peers.py."""

from tests.peers import peer_0152, release_endpoint, release_peer, too_old_peer  # noqa: F401
