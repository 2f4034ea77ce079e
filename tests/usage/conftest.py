"""The usage tests' own seeded peer (see ``tests/peers.py``)."""

from tests.peers import usage_endpoint, usage_peer  # noqa: F401 (fixtures)
