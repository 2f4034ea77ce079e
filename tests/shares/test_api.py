"""Share links through the API (fake Hermes): create, list and revoke with a token."""

import pytest
from django.test import Client

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import IdempotencyRecord
from hermes_ui.shares.models import Share
from tests.shares.conftest import API_KEY, EMAIL, SID

pytestmark = pytest.mark.django_db
CREATE = f"/api/v1/e/local/shares/{SID}"


def post(client, url, body=None, key=None):
    headers = {"Idempotency-Key": key or mint_key()}
    return client.post(url, body or {}, content_type="application/json", headers=headers)


@pytest.fixture
def share_bearer(users):
    from hermes_ui.api_tokens import tokens

    def make(name: str, *, write: bool = True) -> Client:
        _, plain = tokens.issue(users[name], f"{name} share token", write=write)
        return Client(headers={"Authorization": f"Bearer {plain}"})

    return make


def test_a_token_creates_lists_and_revokes_a_link(share_bearer, colleague, shared_session):
    support = share_bearer("support")
    key = mint_key()
    made = post(support, CREATE, {"kind": "inside", "max_views": 5, "lineage": True}, key=key)
    assert made.status_code == 201, made.content
    body = made.json()
    assert body["kind"] == "inside" and body["state"] == "live" and body["max_views"] == 5
    assert body["masked"] >= 2 and body["replayed"] is False
    token = body["url"].rsplit("/s/", 1)[1].strip("/")
    assert token not in str(list(IdempotencyRecord.objects.values()))  # only the answer has it
    opened = colleague.get(f"/s/{token}/").content.decode()
    assert "[redacted:email]" in opened and EMAIL not in opened and API_KEY not in opened
    assert 'id="share-lineage"' in opened  # asked for; the index does not know it yet

    again = post(support, CREATE, {"kind": "inside", "max_views": 5, "lineage": True}, key=key)
    assert again.status_code == 201 and again.json()["replayed"] is True
    assert again.json()["url"] is None and Share.objects.count() == 1

    listed = support.get("/api/v1/shares").json()["data"]
    assert [row["share_id"] for row in listed] == [body["share_id"]]
    assert share_bearer("reviewer").get("/api/v1/shares").json()["data"] == []

    share_id = body["share_id"]
    refused = post(share_bearer("reviewer"), f"/api/v1/shares/{share_id}/revoke")
    assert refused.status_code == 403 and refused.json()["code"] == "forbidden"
    revoked = post(support, f"/api/v1/shares/{share_id}/revoke")
    assert revoked.status_code == 200 and revoked.json()["state"] == "revoked"
    assert colleague.get(f"/s/{token}/").status_code == 410
    assert support.get("/api/v1/shares").json()["data"] == []


def test_the_api_refuses_what_the_form_refuses(share_bearer, shared_session, settings):
    support = share_bearer("support")
    assert post(support, CREATE, {"kind": "outside"}).status_code == 403  # the switch
    assert post(support, CREATE, {"kind": "sideways"}).status_code == 400
    assert post(support, CREATE, {"days": 0}).status_code == 400
    assert post(support, CREATE, {"days": settings.HERMES_UI_SHARE_MAX_DAYS + 1}).status_code == 400
    assert post(support, CREATE, {"max_views": 0}).status_code == 400
    no_key = support.post(CREATE, {}, content_type="application/json")
    assert no_key.status_code == 400 and no_key.json()["code"] == "idempotency_key_required"
    read_only = post(share_bearer("support", write=False), CREATE)
    assert read_only.status_code == 403 and read_only.json()["code"] == "read_only_token"
    assert post(support, "/api/v1/shares/999/revoke").status_code == 404
    assert not Share.objects.exists()
