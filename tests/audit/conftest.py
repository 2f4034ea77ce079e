"""The audit trail test that makes changes on a real peer uses the changes area's peer."""

from tests.changes.conftest import changes_peer, peer, peer_endpoint  # noqa: F401 (fixtures)
