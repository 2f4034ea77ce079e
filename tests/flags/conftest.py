from tests.support.peers import flags_endpoint, flags_peer  # noqa: F401
