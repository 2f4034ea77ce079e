"""Request -> review -> execute -> result through the views, on the fake provider."""

import logging

import httpx
import pytest
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent, IdempotencyRecord
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.hermes import breaker
from hermes_ui.hermes.client import use_transport
from hermes_ui.web.links import session_url
from tests.deletion.helpers import check, decide, execute, new_url, page, refresh, request_deletion
from tests.support import fakes

pytestmark = pytest.mark.django_db

TARGET = "fx_del_parent"
DELEGATES = {"fx_del_delegate1", "fx_del_delegate2", "fx_del_grandchild"}
REASON = "Customer 4711 asked us to erase the whole conversation"


_down = fakes.raising(httpx.ConnectError)


def deletes(fake):
    return [call for call in fake.calls if call[0] == "DELETE"]


def test_support_requests_admin_approves_admin2_executes(login, fake_hermes, clock):
    support, admin, admin2 = login("support"), login("admin"), login("admin2")
    form = support.get(new_url(TARGET))
    assert form.status_code == 200 and "Delete fixture parent" in form.content.decode()

    case = request_deletion(support, TARGET, REASON)
    assert case.status == Status.PENDING and case.requester_name == "support"
    assert case.snapshot["active_message_count"] == 2 and len(case.snapshot["digest"]) == 64
    assert "Delete fixture parent" not in str(case.snapshot)  # the title is a fingerprint
    assert set(case.cascade_ids) == DELEGATES and case.survivor_ids == ["fx_del_branch"]
    assert deletes(fake_hermes) == []

    review_page = page(admin, case.pk)
    assert 'id="decision-form"' in review_page and "still matches this snapshot" in review_page
    assert decide(admin, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.APPROVED and case.approver_name == "admin"
    assert (case.expires_at - case.approved_at).total_seconds() == 15 * 60

    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED and case.executor_name == "admin2"
    assert deletes(fake_hermes) == [("DELETE", "/api/sessions/fx_del_parent")]
    assert {d["id"]: d["state"] for d in case.result["deleted"]} == dict.fromkeys(
        {TARGET, *DELEGATES}, "gone"
    )
    assert case.result["survivors"] == [
        {"id": "fx_del_branch", "kind": "branch", "parent_session_id": None, "state": "root"}
    ]
    result = page(support, case.pk)
    assert "✓ gone (404)" in result and "✓ parent cleared, a root now" in result
    for kept in [
        "request_dump_*",
        ".jsonl",
        "Long-term memory",
        "Stored Responses objects",
        "External tool effects",
    ]:
        assert kept in result
    assert session_url("local", "fx_del_branch") in result


def test_a_repeated_execution_returns_the_recorded_result_without_a_second_delete(
    login, fake_hermes, clock
):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    admin2 = login("admin2")
    execute(admin2, case.pk)
    again = execute(admin2, case.pk, follow=True)
    assert len(deletes(fake_hermes)) == 1
    assert "already been executed: showing its recorded outcome" in again.content.decode()
    assert IdempotencyRecord.objects.filter(capability="session_delete").count() == 1
    replays = AuditEvent.objects.filter(capability="session_delete", evidence__replayed=True)
    assert replays.count() == 1
    # Even after the 24-hour idempotency record is gone, nothing is sent again.
    IdempotencyRecord.objects.all().delete()
    execute(admin2, case.pk)
    assert len(deletes(fake_hermes)) == 1 and refresh(case).status == Status.EXECUTED


def test_the_requester_cannot_approve_their_own_request(login, fake_hermes, clock):
    admin = login("admin")
    case = request_deletion(admin, TARGET)
    answer = decide(admin, case.pk)
    assert answer.status_code == 403
    assert "another admin must approve it (four-eyes rule)" in answer.content.decode()
    assert refresh(case).status == Status.PENDING
    refused = AuditEvent.objects.get(capability="deletion_approve")
    assert (refused.outcome, refused.error_code) == ("refused", "self_approval")
    # ...but once another admin approved, the requesting admin may execute.
    decide(login("admin2"), case.pk)
    assert execute(admin, case.pk).status_code == 302
    assert refresh(case).status == Status.EXECUTED


@pytest.mark.parametrize("who", ["support", "reviewer"])
def test_only_admins_review_and_execute(login, fake_hermes, clock, who):
    case = request_deletion(login("support"), TARGET)
    assert decide(login(who), case.pk).status_code == 403
    decide(login("admin"), case.pk)
    answer = execute(login(who), case.pk)
    assert answer.status_code == 403
    assert refresh(case).status == Status.APPROVED and deletes(fake_hermes) == []


def test_an_approval_given_by_the_requester_never_counts(login, fake_hermes, clock, users):
    case = request_deletion(login("admin"), TARGET)
    decide(login("admin2"), case.pk)
    # Tampered with in the database: the requester as approver.
    DeletionRequest.objects.filter(pk=case.pk).update(approver=users["admin"])
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 403
    assert "not given by a second person" in answer.content.decode()
    assert deletes(fake_hermes) == []


def test_an_expired_approval_is_refused(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    clock.advance(minutes=14, seconds=59)
    assert refresh(case).status == Status.APPROVED
    clock.advance(seconds=1)
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 409
    body = answer.content.decode()
    assert "This approval has expired (approvals are valid for 15 minutes)" in body
    assert refresh(case).status == Status.EXPIRED and deletes(fake_hermes) == []
    assert AuditEvent.objects.filter(capability="deletion_expire").count() == 1
    assert "Request the deletion again" in page(login("support"), case.pk)


def test_the_queue_expires_due_approvals_as_it_refreshes(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    clock.advance(minutes=16)
    body = login("admin").get("/deletions/", HTTP_HX_REQUEST="true").content.decode()
    assert 'data-status="expired"' in body and refresh(case).status == Status.EXPIRED


def test_a_changed_title_between_approval_and_execution_voids_the_approval(
    login, fake_hermes, clock
):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.rows[TARGET]["title"] = "Renamed meanwhile"
    answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 409
    body = answer.content.decode()
    assert "The session changed after the request was made: title changed" in body
    assert "Renamed meanwhile" not in str(refresh(case).status_note)
    assert case.status == Status.VOID and deletes(fake_hermes) == []


def test_a_chat_turn_between_approval_and_execution_voids_the_approval(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.chat(TARGET)
    body = execute(login("admin2"), case.pk).content.decode()
    assert "message count 2 → 4" in body and "active messages 2 → 4" in body
    assert refresh(case).status == Status.VOID and deletes(fake_hermes) == []


def test_edited_message_content_is_caught_by_the_digest(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.messages[TARGET][0]["content"] = "edited"
    body = execute(login("admin2"), case.pk).content.decode()
    assert "the content of the active messages changed" in body
    assert refresh(case).status == Status.VOID


def test_a_new_delegate_after_the_request_voids_the_approval(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.add("fx_new_delegate", parent="fx_del_delegate2", source="subagent")
    body = execute(login("admin2"), case.pk).content.decode()
    assert "4 delegate session(s) would now be deleted with it instead of 3" in body
    assert refresh(case).status == Status.VOID and deletes(fake_hermes) == []


def test_a_session_changed_before_approval_cannot_be_approved(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    fake_hermes.chat(TARGET)
    admin = login("admin")
    assert "Changed since the request" in page(admin, case.pk)
    answer = decide(admin, case.pk)
    assert answer.status_code == 409 and refresh(case).status == Status.VOID


def test_a_timeout_during_delete_is_uncertain_and_a_check_finds_it_still_there(
    login, fake_hermes, clock
):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.fail_delete = "timeout"
    admin2 = login("admin2")
    execute(admin2, case.pk)
    case = refresh(case)
    assert case.status == Status.UNCERTAIN
    body = page(admin2, case.pk)
    assert "Check what happened" in body and "✓ gone" not in body
    assert "DELETE attempted" in body and "<strong>Executed</strong>" not in body
    first_key = case.idempotency_key
    # A repeat does not retry blindly: it replays "uncertain".
    repeat = execute(admin2, case.pk, follow=True).content.decode()
    assert "its outcome is uncertain, so it is not sent again" in repeat
    assert len(deletes(fake_hermes)) == 1
    fake_hermes.fail_delete = None
    assert check(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.APPROVED and case.idempotency_key != first_key
    assert "found the session still present" in case.status_note
    execute(admin2, case.pk)
    assert refresh(case).status == Status.EXECUTED and len(deletes(fake_hermes)) == 2


def test_a_lost_answer_is_uncertain_and_a_check_confirms_the_deletion(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.fail_delete = "lost_answer"
    execute(login("admin2"), case.pk)
    assert refresh(case).status == Status.UNCERTAIN
    assert check(login("admin"), case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED
    assert {d["state"] for d in case.result["deleted"]} == {"gone"}
    assert case.result["survivors"][0]["state"] == "root"
    assert AuditEvent.objects.get(capability="deletion_check").evidence["deleted"] is True


def test_a_5xx_during_delete_is_uncertain_too(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    fake_hermes.fail_delete = 500
    execute(login("admin2"), case.pk)
    assert refresh(case).status == Status.UNCERTAIN


def test_a_definitive_refusal_keeps_the_approval_under_a_fresh_key(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    key = refresh(case).idempotency_key
    fake_hermes.fail_delete = 401
    execute(login("admin2"), case.pk)
    case = refresh(case)
    assert case.status == Status.APPROVED and case.idempotency_key != key
    assert "Hermes refused the DELETE (invalid_api_key)" in case.status_note
    fake_hermes.fail_delete = None
    execute(login("admin2"), case.pk)
    assert refresh(case).status == Status.EXECUTED


def test_a_turn_running_on_a_newer_hermes_keeps_the_case_approved(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    key = refresh(case).idempotency_key
    fake_hermes.fail_delete = "active_turn"
    admin2 = login("admin2")
    execute(admin2, case.pk)
    case = refresh(case)
    assert case.status == Status.APPROVED and case.idempotency_key != key
    assert "A turn was running in this session" in case.status_note
    body = page(admin2, case.pk)
    assert "A turn was running in this session" in body and "<strong>Executed</strong>" not in body
    fake_hermes.fail_delete = None
    execute(admin2, case.pk)
    assert refresh(case).status == Status.EXECUTED and len(deletes(fake_hermes)) == 2


def test_a_rejected_request_cannot_be_executed(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    assert decide(login("admin"), case.pk, "reject", "legal_hold", "Held for case 12").status_code
    case = refresh(case)
    assert case.status == Status.REJECTED and case.expires_at is None
    answer = execute(login("admin"), case.pk)
    assert answer.status_code == 409 and "only an approved request can be executed" in (
        answer.content.decode()
    )


@pytest.mark.parametrize(
    ("decision", "rule", "comment", "message"),
    [
        ("approve", "legal_hold", "x", "is a ground to keep the session"),
        ("reject", "owner_request", "x", "is a ground to delete"),
        ("approve", "", "x", "Choose the policy rule you apply."),
        ("approve", "owner_request", "   ", "Add a comment"),
        ("maybe", "owner_request", "x", "Select a valid choice"),
    ],
)
def test_a_decision_needs_a_fitting_rule_and_a_comment(
    login, fake_hermes, clock, decision, rule, comment, message
):
    case = request_deletion(login("support"), TARGET)
    answer = decide(login("admin"), case.pk, decision, rule, comment)
    assert answer.status_code == 400 and message in answer.content.decode()
    assert refresh(case).status == Status.PENDING


def test_a_request_needs_a_reason_and_an_existing_session(login, fake_hermes):
    support = login("support")
    url = reverse("deletion_new", kwargs={"endpoint": "local"})
    answer = support.post(url, {"session": TARGET, "reason": "  "})
    assert answer.status_code == 400 and "Give a reason" in answer.content.decode()
    assert support.get(new_url("no-such-session")).status_code == 404
    assert support.get(new_url("bad\nid")).status_code == 400
    assert DeletionRequest.objects.count() == 0


def test_one_open_request_per_session(login, fake_hermes, clock):
    support = login("support")
    first = request_deletion(support, TARGET)
    again = login("reviewer").post(
        reverse("deletion_new", kwargs={"endpoint": "local"}),
        {"session": TARGET, "reason": "me too"},
    )
    assert again.status_code == 302 and again["Location"].endswith(f"/deletions/{first.pk}/")
    assert DeletionRequest.objects.count() == 1


def test_the_requester_can_withdraw(login, fake_hermes, clock):
    support = login("support")
    case = request_deletion(support, TARGET)
    support.post(reverse("deletion_withdraw", kwargs={"pk": case.pk}))
    case = refresh(case)
    assert case.status == Status.VOID and "Withdrawn by support" in case.status_note


def test_requesters_see_their_own_requests_and_admins_see_all(login, fake_hermes, clock):
    mine = request_deletion(login("support"), TARGET)
    theirs = request_deletion(login("reviewer"), "peer-demo")
    support_queue = login("support").get("/deletions/").content.decode()
    assert f'id="deletion-{mine.pk}"' in support_queue
    assert f'id="deletion-{theirs.pk}"' not in support_queue
    assert login("support").get(f"/deletions/{theirs.pk}/").status_code == 403
    admin_queue = login("admin").get("/deletions/").content.decode()
    assert f'id="deletion-{mine.pk}"' in admin_queue and f'id="deletion-{theirs.pk}"' in admin_queue
    live = login("admin").get("/deletions/?status=pending", HTTP_HX_REQUEST="true")
    body = live.content.decode()
    assert body.lstrip().startswith('<section id="queue"') and "every 4s" in body
    assert login("admin").get("/deletions/?status=nope").status_code == 400


def test_htmx_steps_swap_the_case_block(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    admin = login("admin")
    approved = admin.post(
        reverse("deletion_decide", kwargs={"pk": case.pk}),
        {"decision": "approve", "policy_rule": "owner_request", "comment": "ok"},
        HTTP_HX_REQUEST="true",
    )
    assert approved.status_code == 200
    assert approved.content.decode().lstrip().startswith('<section id="case"')
    assert 'id="execute"' in approved.content.decode()
    # A refusal answers 409 with the case block and its reason (base.html has htmx swap it).
    again = admin.post(
        reverse("deletion_decide", kwargs={"pk": case.pk}),
        {"decision": "approve", "policy_rule": "owner_request", "comment": "ok"},
        HTTP_HX_REQUEST="true",
    )
    assert again.status_code == 409 and 'id="refusal"' in again.content.decode()
    assert again.content.decode().lstrip().startswith('<section id="case"')
    bad = admin.post(
        reverse("deletion_decide", kwargs={"pk": case.pk}),
        {"decision": "maybe"},
        HTTP_HX_REQUEST="true",
    )
    assert bad.status_code == 400 and bad.content.decode().lstrip().startswith('<section id="case"')
    swapped = execute(admin, case.pk, HTTP_HX_REQUEST="true")
    assert swapped.status_code == 200 and 'id="result"' in swapped.content.decode()


def test_the_session_page_offers_a_request_then_links_the_open_one(login, fake_hermes, clock):
    support = login("support")
    detail = support.get(session_url("local", TARGET)).content.decode()
    assert new_url(TARGET).replace("&", "&amp;") in detail or new_url(TARGET) in detail
    case = request_deletion(support, TARGET)
    detail = support.get(session_url("local", TARGET)).content.decode()
    assert f"/deletions/{case.pk}/" in detail and "Request deletion" not in detail


def test_audit_evidence_and_logs_carry_fingerprints_never_the_reason(
    login, fake_hermes, clock, caplog
):
    caplog.set_level(logging.DEBUG)
    case = request_deletion(login("support"), TARGET, REASON)
    decide(login("admin"), case.pk, comment="Ticket 99 checked by phone")
    execute(login("admin2"), case.pk)
    events = list(AuditEvent.objects.values_list("capability", "evidence"))
    assert {c for c, _ in events} >= {"deletion_request", "deletion_approve", "session_delete"}
    dump = str(events) + caplog.text
    assert REASON not in dump and "Ticket 99" not in dump and "Delete fixture parent" not in dump
    requested = AuditEvent.objects.get(capability="deletion_request").evidence
    assert requested["reason"]["length"] == len(REASON) and set(requested["cascade"]) == DELEGATES
    approved = AuditEvent.objects.get(capability="deletion_approve").evidence
    assert approved["policy_rule"] == "owner_request" and approved["comment"]["present"]


def test_the_htmx_request_form_redirects_on_success_and_swaps_errors_in_place(
    login, fake_hermes, clock
):
    support = login("support")
    url = reverse("deletion_new", kwargs={"endpoint": "local"})
    empty = support.post(url, {"session": TARGET, "reason": ""}, HTTP_HX_REQUEST="true")
    assert empty.status_code == 400 and "Give a reason" in empty.content.decode()
    made = support.post(url, {"session": TARGET, "reason": "gone"}, HTTP_HX_REQUEST="true")
    case = DeletionRequest.objects.get()
    assert made["HX-Redirect"] == f"/deletions/{case.pk}/"
    again = support.post(url, {"session": TARGET, "reason": "again"}, HTTP_HX_REQUEST="true")
    assert again["HX-Redirect"] == f"/deletions/{case.pk}/"


def test_hermes_down_while_requesting_records_nothing_and_says_so(login, fake_hermes, clock):
    with use_transport(httpx.MockTransport(_down)):
        answer = login("support").post(
            reverse("deletion_new", kwargs={"endpoint": "local"}),
            {"session": TARGET, "reason": "gone"},
        )
    assert answer.status_code == 502 and "Hermes is unreachable" in answer.content.decode()
    assert DeletionRequest.objects.count() == 0


def test_hermes_failing_under_the_htmx_request_form_answers_its_status_in_place(
    login, fake_hermes, clock
):
    def messages_fail(request):
        if request.url.path.endswith("/messages"):
            return fakes.error(500, "server_error", "boom")
        return fake_hermes(request)

    url = reverse("deletion_new", kwargs={"endpoint": "local"})
    with use_transport(httpx.MockTransport(messages_fail)):
        answer = login("support").post(
            url, {"session": TARGET, "reason": "gone"}, HTTP_HX_REQUEST="true"
        )
    body = answer.content.decode()
    assert answer.status_code == 502 and 'id="request-form"' in body
    assert 'id="hermes-error"' in body and "gone</textarea>" in body  # the form as typed
    assert "HX-Retarget" not in answer  # the form's own region, not the whole page
    assert DeletionRequest.objects.count() == 0


def test_hermes_down_at_execution_keeps_the_approval(login, fake_hermes, clock):
    case = request_deletion(login("support"), TARGET)
    decide(login("admin"), case.pk)
    with use_transport(httpx.MockTransport(_down)):
        answer = execute(login("admin2"), case.pk)
    assert answer.status_code == 502 and 'id="hermes-error"' in answer.content.decode()
    assert refresh(case).status == Status.APPROVED and deletes(fake_hermes) == []
    with use_transport(httpx.MockTransport(_down)):
        swapped = execute(login("admin2"), case.pk, HTTP_HX_REQUEST="true")
    body = swapped.content.decode()
    assert swapped.status_code == 502 and body.lstrip().startswith('<section id="case"')
    assert 'id="hermes-error"' in body and refresh(case).status == Status.APPROVED
    # Hermes is back, and the breaker those failures opened has let a trial through.
    breaker.reset_all()
    execute(login("admin2"), case.pk)
    assert refresh(case).status == Status.EXECUTED
