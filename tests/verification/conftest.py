"""Two real Hermes peers as endpoints ``a`` and ``b`` (see ``tests/peers.py``)."""

from tests.peers import endpoints, two_peers, with_down  # noqa: F401 (fixtures)
