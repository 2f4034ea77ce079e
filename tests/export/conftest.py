"""The compare and export tests' own seeded peer (see ``tests/support/peers.py``)."""

from tests.support.peers import review_client, review_endpoint, review_peer  # noqa: F401 (fixtures)
