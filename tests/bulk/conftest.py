"""Two real Hermes peers as endpoints ``a`` and ``b`` (see ``tests/support/peers.py``)."""

from tests.support.peers import endpoints, two_peers, with_down  # noqa: F401 (fixtures)
