"""The audit trail test that makes changes on a real peer uses the changes peer."""

from tests.support.peers import changes_client, changes_endpoint, changes_peer  # noqa: F401 (fixtures)
