from tests.support.peers import changes_endpoint, changes_peer, flags_endpoint, flags_peer  # noqa: F401
