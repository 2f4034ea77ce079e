"""Four eyes on every path that files a deletion, against a real Hermes.

Whoever files (a single request, a bulk selection, a follow-up of an
incomplete deletion, the API) can neither approve nor execute what they
filed: one admin alone never reaches an executed DELETE. Retention's paths
(run now, the daily run) are in ``tests/retention/test_peer_four_eyes.py``.
"""

from __future__ import annotations

import secrets

import pytest
from django.test import Client
from django.urls import reverse

from hermes_ui.api_tokens import tokens
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.deletion.models import DeletionBatch, DeletionRequest, Status
from tests.deletion.helpers import decide, execute, request_deletion
from tests.jobs.helpers import follow
from tests.support.peers import index, make, read

pytestmark = [pytest.mark.peer, pytest.mark.usefixtures("jobs_db")]

APPROVE = {"decision": "approve", "policy_rule": "test_or_duplicate", "comment": "Checked"}


def fresh(endpoint, n: int = 1) -> list[str]:
    ids = [f"foureyes-{secrets.token_hex(4)}" for _ in range(n)]
    for sid in ids:
        make(endpoint, sid)
    return ids


def alone_on_case(client, case, endpoint) -> None:
    answer = decide(client, case.pk)
    assert answer.status_code == 403 and "four-eyes rule" in answer.content.decode()
    assert execute(client, case.pk).status_code == 409  # nothing approved to execute
    case.refresh_from_db()
    assert case.status == Status.PENDING
    assert read(endpoint, case.session_id).id == case.session_id


def alone_on_batch(client, batch, endpoint) -> None:
    answer = client.post(reverse("deletion_batch_decide", kwargs={"pk": batch.pk}), APPROVE)
    assert answer.status_code == 403 and 'data-code="self_approval"' in answer.content.decode()
    executed = client.post(reverse("deletion_batch_execute", kwargs={"pk": batch.pk}))
    assert executed.status_code == 409
    for member in batch.members.all():
        # Nor one member on its own: a member is reviewed with its batch.
        assert decide(client, member.pk).status_code in (403, 409)
        assert member.status == Status.PENDING
        assert read(endpoint, member.session_id).id == member.session_id


def test_a_single_request(peer_endpoint, login):
    (sid,) = fresh(peer_endpoint)
    admin = login("admin")
    alone_on_case(admin, request_deletion(admin, sid), peer_endpoint)


def test_a_bulk_request_from_the_index(peer_endpoint, login):
    ids = fresh(peer_endpoint, 2)
    index(peer_endpoint)
    admin = login("admin")
    form = {"ids": ids, "stage": "confirm", "reason": "Test data clean-up"}
    filed = follow(admin, admin.post(reverse("bulk_delete", kwargs={"endpoint": "local"}), form))
    assert filed.status_code == 302, filed.content.decode()[:1000]
    batch = DeletionBatch.objects.get(members__session_id=ids[0])
    assert sorted(m.session_id for m in batch.members.all()) == sorted(ids)
    alone_on_batch(admin, batch, peer_endpoint)


def test_the_follow_up_of_an_incomplete_deletion(peer_endpoint, login, users):
    """The incomplete deletion is recorded as a release that does not cascade leaves it
    (``tests/releases/test_deletion_0152.py`` walks one); its leftovers are real sessions."""
    leftovers = fresh(peer_endpoint, 2)
    done = DeletionRequest.objects.create(
        **peer_endpoint.scope(),
        session_id="foureyes-parent-gone",
        requester=users["admin2"],
        requester_name="admin2",
        reason="Earlier request",
        created_at="2026-01-01T00:00:00Z",
        status=Status.EXECUTED,
        approver=users["admin"],
        result={"deleted": [{"id": sid, "state": "still_present"} for sid in leftovers]},
    )
    admin = login("admin")  # approved the first deletion, now files the follow-up alone
    answer = admin.post(reverse("deletion_follow_up", kwargs={"pk": done.pk}))
    assert answer.status_code == 302, answer.content.decode()[:1000]
    batch = DeletionBatch.objects.get(pk=int(answer["Location"].rstrip("/").rsplit("/", 1)[1]))
    assert batch.requester == users["admin"]
    alone_on_batch(admin, batch, peer_endpoint)


def test_a_request_filed_through_the_api(peer_endpoint, login, users):
    (sid,) = fresh(peer_endpoint)
    _, token = tokens.issue(users["admin"], "four eyes", days=1, write=True)
    api = Client(headers={"Authorization": f"Bearer {token}"})
    answer = api.post(
        f"/api/v1/e/local/deletion/{sid}",
        {"reason": "Ticket 4711"},
        content_type="application/json",
        headers={"Idempotency-Key": mint_key()},
    )
    assert answer.status_code == 201 and answer.json()["created"], answer.content.decode()
    case = DeletionRequest.objects.get(pk=answer.json()["request_id"])
    alone_on_case(login("admin"), case, peer_endpoint)
