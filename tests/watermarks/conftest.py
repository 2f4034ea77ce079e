"""The watermark tests' own peer (no seed: every test makes its sessions, chats and deletes)."""

from tests.support.peers import triage_client, triage_endpoint, triage_peer  # noqa: F401 (fixtures)
