"""The usage tests' own seeded peer (see ``tests/support/peers.py``)."""

from tests.support.peers import usage_endpoint, usage_peer  # noqa: F401 (fixtures)
