from tests.review_peer import peer, peer_endpoint, review_peer  # noqa: F401
