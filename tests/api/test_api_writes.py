"""Issue 49's writes against the real peer: each one beside the page's POST (the same audit
rows), refused for a role too low on the endpoint, replayed for its key and body, refused
(422) for its key with another body, and an uncertain answer as 202 + Location, then 200
once reading Hermes settles it."""

from __future__ import annotations

import secrets
from urllib.parse import quote

import pytest
from django.urls import reverse

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion.models import DeletionRequest
from hermes_ui.hermes.client import HermesClient, use_transport
from hermes_ui.review import rubrics
from hermes_ui.review.models import Label, Note, Queue, Rubric, RubricVersion
from hermes_ui.web.links import session_url
from tests.changes.conftest import Faults
from tests.deletion.helpers import decide, execute, request_deletion
from tests.review.filters_rules_export.made import item
from tests.support.peers import make
from tests.support.waiting import until

pytestmark = [pytest.mark.peer, pytest.mark.django_db]


def send(client, method: str, url: str, body, key: str | None = None):
    headers = {"Idempotency-Key": key} if key else {}
    return getattr(client, method)(url, body, content_type="application/json", headers=headers)


def sessions(endpoint, count: int = 2, **fields) -> list[str]:
    made = [f"apiw {secrets.token_hex(4)} %41 #x" for _ in range(count)]
    for sid in made:
        make(endpoint, sid, **fields)
    return made


def api(path: str, sid: str = "") -> str:
    return f"/api/v1/e/local/{path}" + (f"/{quote(sid, safe='')}" if sid else "")


def trail(sid: str, *, skip=("api.",)) -> list[tuple]:
    """The audit rows about ``sid`` as (capability, outcome, status, evidence keys)."""
    rows = AuditEvent.objects.filter(session_id=sid).order_by("pk")
    return [
        (e.capability, e.outcome, e.http_status, sorted(set(e.evidence) - {"attempted_at"}))
        for e in rows
        if not e.capability.startswith(skip)
    ]


def test_rename_and_close_by_token_write_what_the_page_writes(peer_endpoint, bearer, login):
    by_page, by_api = sessions(peer_endpoint)
    page, token = login("support"), bearer("support", write=True)
    for op, fields, body in [
        ("rename", {"title": f"t {by_page[5:13]}"}, {"title": f"t {by_api[5:13]}"}),
        ("close", {"reason": "resolved"}, {"end_reason": "resolved"}),
    ]:
        url = session_url("local", by_page, "session_rename")
        posted = page.post(url, {"op": op, "key": mint_key(), **fields})
        assert posted.status_code == 302, posted.content.decode()[:500]
        answer = send(token, "patch", api("session", by_api), body, mint_key())
        assert answer.status_code == 200, answer.content
        assert answer.json()["id"] == by_api and answer.json()["replayed"] is False
    row = HermesClient(peer_endpoint).get_session(by_api)
    assert (row.title, row.end_reason) == (f"t {by_api[5:13]}", "resolved")
    assert trail(by_api) == trail(by_page) and len(trail(by_api)) == 2
    # A reviewer's token may rename; one that reads only may not write at all.
    read_only = send(bearer("admin"), "patch", api("session", by_api), {"title": "x"}, mint_key())
    assert (read_only.status_code, read_only.json()["code"]) == (403, "read_only_token")
    both = send(
        token, "patch", api("session", by_api), {"title": "a", "end_reason": "b"}, mint_key()
    )
    assert both.status_code == 400


def test_create_and_fork_by_token_write_what_the_pages_write(peer_endpoint, bearer, login):
    by_page, by_api = (f"apiw-new-{secrets.token_hex(4)}" for _ in range(2))
    page, token = login("reviewer"), bearer("reviewer", write=True)
    posted = page.post(
        reverse("session_create", kwargs={"endpoint": "local"}),
        {"key": mint_key(), "session_id": by_page, "title": "", "model": "", "system_prompt": ""},
    )
    assert posted.status_code == 302, posted.content.decode()[:500]
    key = mint_key()
    made = send(token, "post", api("sessions"), {"session_id": by_api}, key)
    assert made.status_code == 201, made.content
    assert made.json()["id"] == by_api and made.json()["event_id"]
    forked_page = page.post(
        session_url("local", by_page, "session_fork"), {"key": mint_key(), "child_id": ""}
    )
    assert forked_page.status_code == 302
    fork_key = mint_key()
    child = send(token, "post", api("fork", by_api), {"title": None}, fork_key)
    assert child.status_code == 201, child.content
    assert child.json()["parent_session_id"] == by_api and child.json()["id"] != by_api
    assert trail(by_api) == trail(by_page)
    assert [row[0] for row in trail(by_api)] == ["session_create", "session_fork"]
    # Each again with its key: the first answer (the session as it is now), nothing made.
    again = send(token, "post", api("sessions"), {"session_id": by_api}, key).json()
    assert (again["id"], again["event_id"], again["replayed"]) == (
        by_api,
        made.json()["event_id"],
        True,
    )
    again = send(token, "post", api("fork", by_api), {"title": None}, fork_key)
    assert again.json() == {**child.json(), "replayed": True}
    # The pages' role: support may rename and close, not create or fork.
    support = bearer("support", write=True)
    assert send(support, "post", api("sessions"), {}, mint_key()).status_code == 403
    assert send(support, "post", api("fork", by_api), {}, mint_key()).status_code == 403


def test_a_key_replays_its_own_request_and_is_refused_for_another(peer_endpoint, bearer):
    (sid,) = sessions(peer_endpoint, 1)
    token, key = bearer("support", write=True), mint_key()
    first = send(token, "patch", api("session", sid), {"title": "one"}, key)
    again = send(token, "patch", api("session", sid), {"title": "one"}, key)
    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == {**first.json(), "replayed": True}
    for method, path, body in [
        ("patch", "session", {"title": "two"}),  # another body
        ("patch", "session", {"end_reason": "resolved"}),
        ("post", "deletion", {"reason": "gone"}),  # another operation
    ]:
        reused = send(token, method, api(path, sid), body, key)
        assert (reused.status_code, reused.json()["code"]) == (422, "idempotency_key_reused")
    row = HermesClient(peer_endpoint).get_session(sid)
    assert (row.title, row.end_reason) == ("one", None)
    assert not DeletionRequest.objects.filter(session_id=sid).exists()
    # The same key from another person is their own request, never a replay of this one.
    theirs = send(
        bearer("reviewer", write=True), "patch", api("session", sid), {"title": "one"}, key
    )
    assert theirs.status_code == 200 and theirs.json()["replayed"] is False
    keyless = send(token, "patch", api("session", sid), {"title": "one"})
    assert (keyless.status_code, keyless.json()["code"]) == (400, "idempotency_key_required")


def test_an_answer_lost_after_the_rename_is_202_then_200_once_read(peer_endpoint, bearer):
    (sid,) = sessions(peer_endpoint, 1)
    token, key = bearer("support", write=True), mint_key()
    faults = Faults({("PATCH", ""): "lost"})
    with use_transport(faults.transport):
        lost = send(token, "patch", api("session", sid), {"title": "landed"}, key)
        again = send(token, "patch", api("session", sid), {"title": "landed"}, key)
    assert lost.status_code == 202, lost.content
    assert lost["Location"] == f"/api/v1/outcomes/{key}" == lost.json()["location"]
    assert again.status_code == 202 and len(faults.sent("PATCH")) == 1  # never sent twice
    assert trail(sid)[0][:2] == ("session_patch", "uncertain")
    settled = token.get(lost["Location"])
    assert settled.status_code == 200, settled.content
    assert settled.json()["state"] == "done" and settled.json()["operation"] == "patch_session"
    assert {c["state"] for c in settled.json()["checks"]} == {"yes"}
    assert bearer("admin").get(lost["Location"]).status_code == 404  # only the sender's key


def test_an_unreadable_outcome_stays_202(peer_endpoint, bearer):
    (sid,) = sessions(peer_endpoint, 1)
    token, key = bearer("support", write=True), mint_key()
    with use_transport(Faults({("PATCH", ""): "timeout", ("GET", ""): 503}).transport):
        lost = send(token, "patch", api("session", sid), {"title": "maybe"}, key)
        still = token.get(lost["Location"])
    assert (lost.status_code, still.status_code) == (202, 202)
    assert still["Location"] == lost["Location"]


def test_a_note_by_token_is_the_page_note(peer_endpoint, bearer, login):
    by_page, by_api = sessions(peer_endpoint, chat=True)
    posted = login("support").post(session_url("local", by_page, "review_notes"), {"body": "hi"})
    assert posted.status_code == 302, posted.content.decode()[:500]
    token, key = bearer("support", write=True), mint_key()
    added = send(token, "post", api("notes", by_api), {"text": "hi"}, key)
    assert added.status_code == 201, added.content
    again = send(token, "post", api("notes", by_api), {"text": "hi"}, key)
    assert again.status_code == 201 and again.json() == {**added.json(), "replayed": True}
    assert Note.objects.filter(session_id=by_api).count() == 1
    assert trail(by_api) == trail(by_page) and trail(by_api)
    other = send(token, "post", api("notes", by_api), {"text": "changed"}, key)
    assert other.status_code == 422
    missing = send(
        token, "post", api("notes", by_api), {"text": "x", "message_id": 10**9}, mint_key()
    )
    assert (missing.status_code, missing.json()["code"]) == (404, "message_not_found")


def test_review_labels_by_token_are_the_review_page_labels(peer_endpoint, bearer, login):
    by_page, by_api = sessions(peer_endpoint)
    rubric = Rubric.objects.create(name=f"api {by_api[5:13]}")
    field = {"key": "ok", "label": "OK", "type": "bool", "applies": "session"}
    RubricVersion.objects.create(rubric=rubric, number=1, fields=[field])
    queue = Queue.objects.create(
        **peer_endpoint.scope(), name=rubric.name, rubric=rubric, any_reviewer=True
    )
    on_page, on_api = item(queue, by_page), item(queue, by_api)
    url = reverse(
        "review_item", kwargs={"endpoint": "local", "queue_id": queue.pk, "item_id": on_page.pk}
    )
    posted = login("reviewer").post(url, {"action": "save", "s-ok": rubrics.YES})
    assert posted.status_code == 302, posted.content.decode()[:500]
    labels_url = f"/api/v1/e/local/review/items/{on_api.pk}/labels"
    body = {"labels": {"s-ok": rubrics.YES}}
    saved = send(bearer("reviewer", write=True), "post", labels_url, body, mint_key())
    assert saved.status_code == 200, saved.content
    assert saved.json()["count"] == 1
    assert list(Label.objects.filter(session_id=by_api).values_list("field", "value")) == [
        ("ok", rubrics.YES)
    ]
    assert trail(by_api) == trail(by_page) and trail(by_api)[0][0] == "review.label"
    refused = send(bearer("support", write=True), "post", labels_url, body, mint_key())
    assert refused.status_code == 403
    bad = send(
        bearer("reviewer", write=True),
        "post",
        labels_url,
        {"labels": {"s-ok": "maybe"}},
        mint_key(),
    )
    assert bad.status_code == 400


@pytest.mark.django_db(transaction=True)
def test_deletion_steps_by_token_write_what_the_case_page_writes(peer_endpoint, bearer, login):
    by_page, by_api = sessions(peer_endpoint)
    case = request_deletion(login("admin"), by_page)
    assert decide(login("admin"), case.pk).status_code == 403  # four eyes on the page
    assert decide(login("admin2"), case.pk).status_code == 302
    assert execute(login("admin2"), case.pk).status_code == 302
    filed = send(
        bearer("admin", write=True), "post", api("deletion", by_api), {"reason": "r"}, mint_key()
    )
    assert filed.status_code == 201
    pk = filed.json()["request_id"]
    approve = {"policy_rule": "owner_request", "comment": "Verified the owner's ticket"}
    steps = f"/api/v1/e/local/deletions/{pk}"
    own = send(bearer("admin", write=True), "post", steps + "/approve", approve, mint_key())
    assert (own.status_code, own.json()["code"]) == (403, "self_approval")
    support = send(bearer("support", write=True), "post", steps + "/approve", approve, mint_key())
    assert support.status_code in (403, 404)
    early = send(bearer("admin2", write=True), "post", steps + "/execute", {}, mint_key())
    assert (early.status_code, early.json()["code"]) == (409, "not_approved")
    key = mint_key()
    approved = send(bearer("admin2", write=True), "post", steps + "/approve", approve, key)
    assert approved.status_code == 200 and approved.json()["state"] == "approved"
    executed = send(bearer("admin2", write=True), "post", steps + "/execute", {}, mint_key())
    assert executed.status_code == 200, executed.content
    assert executed.json()["state"] == "executed"
    assert bearer("admin").get(steps).json()["state"] == "executed"

    def done(sid):
        return [row for row in trail(sid, skip=("api.",)) if row[1] == "success"]

    assert done(by_api) == done(by_page)
    assert [row[0] for row in done(by_api)] == [
        "deletion_request",
        "deletion_approve",
        "session_delete",
    ]
    refused = ("deletion_approve", "refused")
    assert refused in [r[:2] for r in trail(by_api)] and refused in [r[:2] for r in trail(by_page)]


@pytest.mark.django_db(transaction=True)
def test_bulk_close_is_a_job_its_owner_and_admins_follow(jobs_db, peer_endpoint, bearer):
    ids = sessions(peer_endpoint)
    token, key = bearer("support", write=True), mint_key()
    body = {"session_ids": ids, "end_reason": "resolved"}
    started = send(token, "post", api("bulk/close"), body, key)
    assert started.status_code == 202, started.content
    where = started["Location"]
    assert where == f"/api/v1/jobs/{started.json()['job_id']}"
    until(lambda: token.get(where).json()["state"] == "done", 30, "the job did not end")
    job = token.get(where).json()
    assert (job["done"], job["total"]) == (2, 2)
    assert sorted(row["session_id"] for row in job["rows"]) == sorted(ids)
    assert {HermesClient(peer_endpoint).get_session(s).end_reason for s in ids} == {"resolved"}
    assert bearer("reviewer").get(where).status_code == 404  # not theirs, not an admin
    assert bearer("admin").get(where).status_code == 200
    assert send(token, "post", api("bulk/close"), body, key).json()["job_id"] == job["job_id"]
    bad = send(token, "post", api("bulk/close"), {**body, "session_ids": ["a\nb"]}, mint_key())
    assert (bad.status_code, bad.json()["code"]) == (400, "bad_selection")


@pytest.mark.django_db(transaction=True)
def test_a_delete_whose_answer_is_lost_is_202_then_done_once_checked(peer_endpoint, bearer):
    (sid,) = sessions(peer_endpoint, 1)
    asker = bearer("admin", write=True)
    filed = send(asker, "post", api("deletion", sid), {"reason": "r"}, mint_key())
    steps = f"/api/v1/e/local/deletions/{filed.json()['request_id']}"
    approve = {"policy_rule": "owner_request", "comment": "Verified the owner's ticket"}
    admin2, key = bearer("admin2", write=True), mint_key()
    assert send(admin2, "post", steps + "/approve", approve, mint_key()).status_code == 200
    faults = Faults({("DELETE", ""): "lost"})
    with use_transport(faults.transport):
        lost = send(admin2, "post", steps + "/execute", {}, key)
        again = send(admin2, "post", steps + "/execute", {}, key)
    assert lost.status_code == 202, lost.content
    assert lost["Location"] == f"/api/v1/outcomes/{key}"
    assert again.status_code == 202 and len(faults.sent("DELETE")) == 1  # never sent twice
    assert admin2.get(steps).json()["state"] == "uncertain"
    settled = admin2.get(lost["Location"])
    assert settled.status_code == 200, settled.content
    assert settled.json()["state"] == "done" and settled.json()["request_id"]
    assert admin2.get(steps).json()["state"] == "executed"
