"""The compare and export tests' own seeded peer (see ``tests/peers.py``)."""

from tests.peers import review_client, review_endpoint, review_peer  # noqa: F401 (fixtures)
