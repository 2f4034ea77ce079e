"""Fork: reviewers only, remembered, and reconciled after any error (it is not atomic)."""

import json
import time

import pytest
from django.db.models import Q

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.audit.redact import describe_text
from hermes_ui.changes.reconcile import children_of, messages_digest, reconcile_fork
from hermes_ui.hermes import Session
from hermes_ui.hermes import errors as e
from hermes_ui.index.models import KnownFork
from hermes_ui.web.links import session_url
from tests.changes.conftest import form_key, make_session, submit_buttons, unique

pytestmark = pytest.mark.django_db


def fork_url(session_id):
    return session_url("local", session_id, "session_fork")


def fork(client, session_id, **data):
    page = client.get(fork_url(session_id))
    assert page.status_code == 200, page.content.decode()[:500]
    fields = {"child_id": "", "title": "", **data}
    return client.post(fork_url(session_id), {"key": form_key(page.content.decode()), **fields})


def checks(html: str) -> dict:
    """The reconcile panel's verdicts by check, as a person reads them."""
    found = {}
    for row in html.split('<tr data-check="')[1:]:
        label = row.split('"', 1)[0]
        found[label] = row.split('class="check check-', 1)[1].split('"', 1)[0]
    return found


@pytest.mark.peer
def test_fork_goes_to_the_child_side_by_side_with_its_parent(login, changes_client):
    parent = make_session(changes_client, title=unique("Parent"), chat="hello [[tool:todo]] there")
    before = changes_client.get_messages(parent["id"])["data"]
    reviewer = login("reviewer")
    answer = fork(reviewer, parent["id"], child_id=unique("kid"), title=unique("Kid title"))
    assert answer.status_code == 302
    page = reviewer.get(answer["Location"]).content.decode()
    event = AuditEvent.objects.get(capability="session_fork")
    child_id = event.evidence["child_id"]
    assert checks(page) == {
        "Parent ended": "yes",
        "Child created": "yes",
        "Messages copied": "yes",
        "Title set": "yes",
    }
    assert 'class="side-by-side"' in page and 'id="open-child"' in page
    assert "closed · branched" in page  # the parent now ends "branched"
    assert KnownFork.objects.filter(parent_id=parent["id"], child_id=child_id).exists()
    child = changes_client.get_session(child_id)
    assert child.parent_id == parent["id"]
    assert changes_client.get_session(parent["id"]).end_reason == "branched"
    copied = changes_client.get_messages(child_id)["data"]
    assert len(copied) == len(before) == 4  # user, tool call, tool result, answer
    assert messages_digest(copied) == messages_digest(before)
    assert event.evidence["digest"] == messages_digest(before)
    # Hermes now resolves the parent's transcript to the child (no branch marker).
    assert changes_client.get_messages(parent["id"])["session_id"] == child_id


@pytest.mark.peer
def test_fork_with_generated_id_and_title(login, changes_client):
    parent = make_session(changes_client, title=unique("Gen"), chat="one")
    reviewer = login("reviewer")
    answer = fork(reviewer, parent["id"])
    child_id = AuditEvent.objects.get().evidence["child_id"]
    assert child_id.startswith("api_")
    assert changes_client.get_session(child_id).title == f"{parent['title']} #2"
    assert checks(reviewer.get(answer["Location"]).content.decode())["Title set"] == "yes"


@pytest.mark.peer
def test_a_duplicate_title_fork_gets_the_reconcile_panel(login, changes_client):
    """The real provider case: HTTP 400 invalid_title after the child was created."""
    taken = make_session(changes_client, title=unique("Taken"))
    parent = make_session(changes_client, title=unique("Src"), chat="copy me")
    reviewer = login("reviewer")
    child_id = unique("kid")
    answer = fork(reviewer, parent["id"], child_id=child_id, title=taken["title"])
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "The fork failed" in page
    assert f"already in use by session {taken['id']}" in page  # the provider's words
    assert checks(page) == {
        "Parent ended": "yes",
        "Child created": "yes",
        "Messages copied": "yes",
        "Title set": "no",
    }
    assert "The fork happened only in part." in page
    assert "rename the child" in page
    assert session_url("local", child_id, "session_rename") in page
    # The half-done child is remembered like any fork.
    assert KnownFork.objects.filter(parent_id=parent["id"], child_id=child_id).exists()
    assert changes_client.get_session(child_id).title is None
    event = AuditEvent.objects.get()
    assert (event.outcome, event.http_status, event.error_code) == (
        "rejected",
        400,
        "invalid_title",
    )
    assert taken["title"] not in json.dumps(event.evidence)


@pytest.mark.peer
def test_a_duplicate_title_with_a_generated_id_finds_the_child(login, changes_client):
    taken = make_session(changes_client, title=unique("Taken"))
    parent = make_session(changes_client, title=unique("Src"), chat="copy me")
    answer = fork(login("reviewer"), parent["id"], title=taken["title"])
    assert answer.status_code == 400
    page = answer.content.decode()
    assert "(found among the parent&#x27;s children)" in page
    (child,) = children_of(changes_client, parent["id"])
    assert KnownFork.objects.filter(child_id=child.id).exists()
    assert checks(page)["Title set"] == "no"


@pytest.mark.peer
def test_an_existing_child_id_is_session_exists_and_nothing_changed(login, changes_client):
    existing = make_session(changes_client)
    parent = make_session(changes_client, chat="hi")
    answer = fork(login("reviewer"), parent["id"], child_id=existing["id"])
    assert answer.status_code == 409
    page = answer.content.decode()
    assert checks(page) == {"Parent ended": "no", "Child created": "no"}
    assert "is not a fork of this parent" in page
    assert "safe to fork again" in page
    assert changes_client.get_session(parent["id"]).end_reason is None
    assert not KnownFork.objects.exists()


@pytest.mark.peer
def test_invalid_session_id_from_the_provider_is_reconciled(changes_client):
    """Whitespace-only ids are refused locally; sent anyway, Hermes refuses them before acting."""
    parent = make_session(changes_client, chat="hi")
    attempted = time.time()
    with pytest.raises(e.BadRequest) as info:
        changes_client._send(
            "session_fork",
            "POST",
            f"/api/sessions/{parent['id']}/fork",
            body={"id": "   "},
            headers={"Idempotency-Key": "k" * 20},
            mutation=True,
        )
    assert info.value.code == "invalid_session_id"
    report = reconcile_fork(
        changes_client,
        parent["id"],
        {"attempted_at": attempted, "parent_open": True, "code": "invalid_session_id"},
    )
    assert {c.label: c.state for c in report.checks} == {
        "Parent ended": "no",
        "Child created": "no",
    }
    assert report.verdict == "No child was created."


@pytest.mark.parametrize("bad", ["../escape", "a/b", "x\\y", "C:kid", "   ", "x" * 257])
def test_the_create_rules_apply_to_child_ids(login, recorder, bad):
    """Hermes' fork accepts '../x' and 'a/b'; the dashboard does not send them."""
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = "090_messages"
    answer = fork(login("reviewer"), "peer-demo", child_id=bad)
    assert answer.status_code == 400
    assert 'class="field-error"' in answer.content.decode()
    assert not [r for r in recorder.requests if r.method == "POST"]


@pytest.mark.peer
def test_fork_of_an_already_closed_parent_is_remembered(login, changes_client):
    parent = make_session(changes_client, title=unique("Closed"), chat="hi")
    changes_client.patch_session(parent["id"], idempotency_key="c" * 20, end_reason="resolved")
    reviewer = login("reviewer")
    form = reviewer.get(fork_url(parent["id"])).content.decode()
    assert "not shown as a branch in the default session list" in form
    answer = fork(reviewer, parent["id"])
    page = reviewer.get(answer["Location"]).content.decode()
    child_id = AuditEvent.objects.get().evidence["child_id"]
    assert "already closed (resolved) before the fork" in page
    assert (
        changes_client.get_session(parent["id"]).end_reason == "resolved"
    )  # the first reason stays
    assert KnownFork.objects.filter(child_id=child_id).exists()
    listed = {row["id"] for row in changes_client.list_sessions(limit=200)["data"]}
    assert child_id not in listed  # hidden by the default list, yet findable


@pytest.mark.peer
def test_a_repeat_of_one_fork_form_makes_one_child_and_links_it(login, changes_client, faults):
    parent = make_session(changes_client, chat="hi")
    reviewer = login("reviewer")
    key = form_key(reviewer.get(fork_url(parent["id"])).content.decode())
    data = {"key": key, "child_id": "", "title": ""}
    first = reviewer.post(fork_url(parent["id"]), data)
    second = reviewer.post(fork_url(parent["id"]), data)
    (sent,) = faults.sent("POST", "/fork")
    assert sent.headers["Idempotency-Key"] == AuditEvent.objects.first().idempotency_key
    assert first["Location"] != second["Location"]  # each submission has its own event
    replay = reviewer.get(second["Location"]).content.decode()
    child_id = AuditEvent.objects.filter(Q(evidence__replayed=True)).get().evidence["child_id"]
    assert 'id="replay-note"' in replay
    assert f'href="{session_url("local", child_id)}"' in replay
    assert len(children_of(changes_client, parent["id"])) == 1


@pytest.mark.peer
def test_an_answer_lost_after_hermes_forked_is_uncertain_and_reconciled(
    login, changes_client, faults
):
    """Fault injection in front of the real peer: the fork happens, the answer is lost."""
    faults.rules[("POST", "/fork")] = "lost"
    parent = make_session(changes_client, title=unique("Lost"), chat="hi")
    child_id = unique("kid")
    answer = fork(login("reviewer"), parent["id"], child_id=child_id, title=unique("Lost kid"))
    assert answer.status_code == 504
    page = answer.content.decode()
    assert "Outcome uncertain" in page
    assert checks(page) == {
        "Parent ended": "yes",
        "Child created": "yes",
        "Messages copied": "yes",
        "Title set": "yes",
    }
    assert "The fork completed." in page
    assert len(faults.sent("POST", "/fork")) == 1  # never retried
    assert KnownFork.objects.filter(child_id=child_id).exists()
    assert AuditEvent.objects.get().outcome == "uncertain"


@pytest.mark.peer
@pytest.mark.parametrize("fault", ["drop", "timeout", 429, 500, 503])
def test_a_fork_that_never_arrived_is_uncertain_and_says_nothing_happened(
    login, changes_client, faults, fault
):
    faults.rules[("POST", "/fork")] = fault
    parent = make_session(changes_client, chat="hi")
    child_id = unique("kid")
    answer = fork(login("reviewer"), parent["id"], child_id=child_id)
    assert answer.status_code in {502, 504}
    page = answer.content.decode()
    assert "Outcome uncertain" in page and "Check again" in page
    assert checks(page) == {"Parent ended": "no", "Child created": "no"}
    # The only button is "Check again" (a POST that reads and never repeats the fork).
    assert submit_buttons(page.split('id="reconcile"', 1)[1]) == ["Check again"]


def test_a_fork_of_a_missing_session_sends_nothing(login, recorder):
    recorder.routes[("GET", "/api/sessions/nope")] = "031_get_404"
    reviewer = login("reviewer")
    assert reviewer.get(fork_url("nope")).status_code == 404
    answer = reviewer.post(fork_url("nope"), {"key": mint_key(), "child_id": "", "title": ""})
    assert answer.status_code == 404
    assert "Nothing was sent" in answer.content.decode()
    assert not [r for r in recorder.requests if r.method == "POST"]


def test_support_cannot_fork(login, recorder):
    support = login("support")
    assert support.get(fork_url("peer-demo")).status_code == 403
    assert support.post(fork_url("peer-demo"), {"key": "k" * 22}).status_code == 403
    assert recorder.requests == []


def test_reconcile_compares_the_recorded_title_fingerprint():
    class Reads:
        def get_session(self, session_id):
            if session_id == "p":
                return Session.from_row({"id": "p", "ended_at": 1.0, "end_reason": "branched"})
            return Session.from_row(
                {"id": "c", "parent_session_id": "p", "title": "Wanted", "started_at": 10.0}
            )

        def get_messages(self, session_id):
            return {"session_id": session_id, "data": [{"role": "user", "content": "x"}]}

    digest = messages_digest([{"role": "user", "content": "x"}])
    evidence = {
        "child_id": "c",
        "title": describe_text("Wanted"),
        "parent_open": True,
        "parent_message_count": 1,
        "attempted_at": 10.0,
        "digest": digest,
    }
    report = reconcile_fork(Reads(), "p", evidence)
    assert report.complete
    other = reconcile_fork(Reads(), "p", {**evidence, "title": describe_text("Other")})
    assert {c.label: c.state for c in other.checks}["Title set"] == "no"
    changed = reconcile_fork(Reads(), "p", {**evidence, "digest": "0" * 64})
    assert {c.label: c.state for c in changed.checks}["Messages copied"] == "partly"


@pytest.mark.peer
def test_a_second_fork_copies_the_parents_own_rows(login, changes_client):
    """After one fork Hermes resolves the parent's /messages to the child; fork still copies
    the parent's own rows, so the dashboard counts what the parent row holds."""
    parent = make_session(changes_client, title=unique("Twice"), chat="first")
    reviewer = login("reviewer")
    fork(reviewer, parent["id"], child_id=unique("one"))
    form = reviewer.get(fork_url(parent["id"])).content.decode()
    assert "the child of an earlier fork" in form
    answer = fork(reviewer, parent["id"], child_id=unique("two"))
    page = reviewer.get(answer["Location"]).content.decode()
    assert checks(page)["Messages copied"] == "yes"
    assert "counted only" in page
    assert len(children_of(changes_client, parent["id"])) == 2
