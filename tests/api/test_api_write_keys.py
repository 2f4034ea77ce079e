"""API writes against the real peer: a key is bound to its session, and the header and the
token's scope are checked before the tag, so a read-only token learns nothing of tag names."""

from __future__ import annotations

import secrets

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.deletion.models import DeletionRequest
from hermes_ui.tags.models import SessionTag, Tag
from tests.support.peers import make

pytestmark = [pytest.mark.peer, pytest.mark.django_db]


def _send(client, url, body, key=None, method="post"):
    headers = {"Idempotency-Key": key} if key else {}
    return getattr(client, method)(url, body, content_type="application/json", headers=headers)


def two_sessions(endpoint) -> list[str]:
    ids = [f"keys-{secrets.token_hex(4)}" for _ in range(2)]
    for sid in ids:
        make(endpoint, sid)
    return ids


def test_a_deletion_key_reused_for_another_session_is_422_and_files_nothing(peer_endpoint, bearer):
    first_id, second_id = two_sessions(peer_endpoint)
    client, key = bearer("support", write=True), mint_key()
    first = _send(client, f"/api/v1/e/local/deletion/{first_id}", {"reason": "ticket 1"}, key)
    assert first.status_code == 201 and first.json()["session_id"] == first_id
    reused = _send(client, f"/api/v1/e/local/deletion/{second_id}", {"reason": "ticket 1"}, key)
    assert reused.status_code == 422, reused.content.decode()
    assert reused.json()["code"] == "idempotency_key_reused"
    assert not DeletionRequest.objects.filter(session_id=second_id).exists()
    # The same key for the same session is still a replay, and a fresh key files.
    again = _send(client, f"/api/v1/e/local/deletion/{first_id}", {"reason": "ticket 1"}, key)
    assert again.json() == {**first.json(), "replayed": True}
    fresh = _send(client, f"/api/v1/e/local/deletion/{second_id}", {"reason": "x"}, mint_key())
    assert fresh.json()["created"] is True and fresh.json()["session_id"] == second_id


def test_a_tag_key_reused_for_another_session_is_422(peer_endpoint, bearer):
    first_id, second_id = two_sessions(peer_endpoint)
    Tag.objects.create(name="bound")
    client, key = bearer("reviewer", write=True), mint_key()
    first = _send(client, f"/api/v1/e/local/tags/{first_id}", {"tag": "bound"}, key)
    assert first.status_code == 200
    reused = _send(client, f"/api/v1/e/local/tags/{second_id}", {"tag": "bound"}, key)
    assert reused.status_code == 422 and reused.json()["code"] == "idempotency_key_reused"
    assert list(SessionTag.objects.values_list("session_id", flat=True)) == [first_id]


@pytest.mark.parametrize("method", ["post", "delete"])
def test_the_header_and_scope_come_before_the_tag(peer_endpoint, bearer, method):
    """Whether a tag name exists is never the answer to a write that may not tag."""
    Tag.objects.create(name="exists")
    url = "/api/v1/e/local/tags/any-session"
    for name in ("exists", "no-such-tag"):
        keyless = _send(bearer("reviewer", write=True), url, {"tag": name}, method=method)
        assert (keyless.status_code, keyless.json()["code"]) == (400, "idempotency_key_required")
        read_only = _send(bearer("admin"), url, {"tag": name}, mint_key(), method=method)
        assert (read_only.status_code, read_only.json()["code"]) == (403, "read_only_token")
        support = _send(bearer("support", write=True), url, {"tag": name}, mint_key(), method)
        assert support.status_code == 403
    # A token that may tag learns that a tag does not exist.
    unknown = _send(bearer("reviewer", write=True), url, {"tag": "no-such-tag"}, mint_key())
    assert (unknown.status_code, unknown.json()["code"]) == (404, "unknown_tag")
