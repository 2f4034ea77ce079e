"""The deletion workflow against the real Hermes API server (hermes-agent 0.19.0).

The full walk deletes seeded lineage, so it runs on ``fresh_peer``; the
refusals use sessions each test creates on the shared peer and prove that
nothing was deleted by reading them back.
"""

import uuid

import httpx
import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent, IdempotencyRecord
from hermes_ui.deletion.models import Status
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient, use_transport
from hermes_ui.observed.models import Observation
from tests.deletion.helpers import check, decide, execute, page, refresh, request_deletion
from tests.support.peers import endpoint_for

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def exists(client: HermesClient, session_id: str) -> bool:
    try:
        client.get_session(session_id)
    except e.NotFound:
        return False
    return True


@pytest.fixture
def own_session(peer_endpoint):
    """A session of this test's own on the shared peer, with one real turn, removed after."""
    client = HermesClient(peer_endpoint)
    sid = f"deletion-test-{uuid.uuid4().hex[:10]}"
    client.create_session(idempotency_key=mint_key(), session_id=sid, title=f"Deletion {sid}")
    client.chat(sid, message="hello")
    yield client, sid
    # Leave the shared peer as it was: other tests page its list by activity.
    if exists(client, sid):
        client.delete_session(sid, idempotency_key=mint_key())


def test_request_approve_execute_deletes_the_delegates_and_keeps_the_branch(
    fresh_peer, settings, login, clock
):
    endpoint = endpoint_for(settings, fresh_peer)
    hermes = HermesClient(endpoint)
    support, admin, admin2 = login("support"), login("admin"), login("admin2")

    case = request_deletion(support, ids.DELEGATE_PARENT, "The user asked for erasure")
    assert set(case.cascade_ids) == {*ids.DELEGATE_CHILDREN, ids.DELEGATE_GRANDCHILD}
    assert [(s["id"], s["kind"]) for s in case.consequences["survivors"]] == [
        (ids.DELEGATE_BRANCH, "branch")
    ]
    assert case.snapshot["active_message_count"] > 0
    assert "still matches this snapshot" in page(admin, case.pk)
    assert decide(admin, case.pk).status_code == 302
    assert refresh(case).status == Status.APPROVED
    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED and case.executor_name == "admin2"

    # Read Hermes directly: the delegates are gone, the branch is a root now.
    for gone in [ids.DELEGATE_PARENT, *ids.DELEGATE_CHILDREN, ids.DELEGATE_GRANDCHILD]:
        assert not exists(hermes, gone), gone
    branch = hermes.get_session(ids.DELEGATE_BRANCH)
    assert branch.parent_id is None
    assert {d["state"] for d in case.result["deleted"]} == {"gone"}
    assert case.result["survivors"][0]["state"] == "root"
    result = page(support, case.pk)
    assert result.count("✓ gone (404)") == 4 and "✓ parent cleared, a root now" in result
    assert not case.incomplete and "executed, incomplete" not in result
    # The cascade was read back and is remembered for this endpoint: no warning later.
    seen = Observation.objects.get(endpoint="local", fact="delete_cascades")
    assert seen.holds is True and seen.source_ref == case.pk
    assert "request_dump_*" in result and "Stored Responses objects" in result

    # A repeat returns the recorded result: no second DELETE reaches Hermes.
    again = execute(admin, case.pk, follow=True).content.decode()
    assert "already been executed" in again
    assert IdempotencyRecord.objects.filter(capability="session_delete").count() == 1
    delete_events = AuditEvent.objects.filter(capability="session_delete").order_by("id")
    assert [ev.evidence.get("replayed", False) for ev in delete_events] == [False, True]
    assert delete_events[0].http_status == 200


def test_self_approval_and_wrong_roles_are_refused_and_nothing_is_deleted(
    own_session, login, clock
):
    client, sid = own_session
    admin = login("admin")
    case = request_deletion(admin, sid)
    answer = decide(admin, case.pk)
    assert answer.status_code == 403 and "four-eyes rule" in answer.content.decode()
    for who in ("support", "reviewer"):
        assert decide(login(who), case.pk).status_code == 403
    decide(login("admin2"), case.pk)
    for who in ("support", "reviewer"):
        assert execute(login(who), case.pk).status_code == 403
    assert refresh(case).status == Status.APPROVED and exists(client, sid)


def test_an_expired_approval_is_refused_and_nothing_is_deleted(own_session, login, clock):
    client, sid = own_session
    case = request_deletion(login("support"), sid)
    decide(login("admin"), case.pk)
    clock.advance(minutes=15, seconds=1)
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 409
    assert "approvals are valid for 15 minutes" in answer.content.decode()
    assert refresh(case).status == Status.EXPIRED and exists(client, sid)


def test_a_title_patched_after_approval_voids_it(own_session, login, clock):
    client, sid = own_session
    case = request_deletion(login("support"), sid)
    decide(login("admin"), case.pk)
    client.patch_session(sid, idempotency_key=mint_key(), title=f"Renamed {sid}")
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 409
    assert "title changed" in answer.content.decode() and "approval is void" in (
        answer.content.decode()
    )
    assert refresh(case).status == Status.VOID and exists(client, sid)


def test_a_chat_turn_after_approval_voids_it(own_session, login, clock):
    client, sid = own_session
    case = request_deletion(login("support"), sid)
    decide(login("admin"), case.pk)
    client.chat(sid, message="one more thing")
    body = execute(login("admin2"), case.pk).content.decode()
    assert "active messages 2 → 4" in body
    assert refresh(case).status == Status.VOID and exists(client, sid)


class LosesTheDelete(httpx.BaseTransport):
    """Forwards everything to the real peer; a DELETE is either lost on the way
    (``before``) or performed with its answer lost (``after``)."""

    def __init__(self, when: str):
        self.real, self.when = httpx.HTTPTransport(), when

    def handle_request(self, request):
        if request.method == "DELETE":
            if self.when == "before":
                raise httpx.ConnectError("connection refused", request=request)
            self.real.handle_request(request).close()
            raise httpx.ReadTimeout("answer lost", request=request)
        return self.real.handle_request(request)


def test_a_lost_delete_answer_is_uncertain_and_the_check_finds_it_deleted(
    own_session, login, clock
):
    client, sid = own_session
    case = request_deletion(login("support"), sid)
    decide(login("admin"), case.pk)
    admin2 = login("admin2")
    with use_transport(LosesTheDelete("after")):
        execute(admin2, case.pk)
    case = refresh(case)
    assert case.status == Status.UNCERTAIN
    shown = page(admin2, case.pk)
    assert "Check what happened" in shown and "✓ gone" not in shown
    assert check(admin2, case.pk).status_code == 302
    assert refresh(case).status == Status.EXECUTED and not exists(client, sid)
    assert case.result["deleted"] == [{"id": sid, "kind": "session", "state": "gone"}]


def test_a_delete_that_never_arrived_is_uncertain_then_retried_under_a_fresh_key(
    own_session, login, clock
):
    client, sid = own_session
    case = request_deletion(login("support"), sid)
    decide(login("admin"), case.pk)
    admin = login("admin")
    with use_transport(LosesTheDelete("before")):
        execute(admin, case.pk)
    first_key = refresh(case).idempotency_key
    assert case.status == Status.UNCERTAIN and exists(client, sid)
    check(admin, case.pk)
    case = refresh(case)
    assert case.status == Status.APPROVED and case.idempotency_key != first_key
    execute(admin, case.pk)
    assert refresh(case).status == Status.EXECUTED and not exists(client, sid)
