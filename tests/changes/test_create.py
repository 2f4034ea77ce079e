"""Create: optional id, title, model and system prompt; the result is the client-safe projection."""

import json
import time

import httpx
import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent, IdempotencyRecord
from hermes_ui.audit.redact import describe_text
from hermes_ui.changes.reconcile import check_create
from hermes_ui.hermes import errors as e
from hermes_ui.web.links import session_url
from tests.changes.conftest import form_key, make_session, unique
from tests.support.peers import unreachable

pytestmark = pytest.mark.django_db
NEW = "/e/local/new/"


def create(client, **data):
    page = client.get(NEW)
    assert page.status_code == 200
    fields = {"session_id": "", "title": "", "model": "", "system_prompt": "", **data}
    return client.post(NEW, {"key": form_key(page.content.decode()), **fields})


@pytest.mark.peer
def test_create_shows_the_safe_projection_never_the_prompt(login, changes_client, faults):
    reviewer = login("reviewer")
    session_id, title = unique("new"), unique("Fresh")
    prompt = "PROMPT-" + unique()
    answer = create(
        reviewer,
        session_id=session_id,
        title=f" {title} ",
        model="stub-model",
        system_prompt=prompt,
    )
    assert answer.status_code == 302
    page = reviewer.get(answer["Location"]).content.decode()
    assert "Session created" in page and f"<code>{session_id}</code>" in page
    assert "has_system_prompt: true" in page
    assert prompt not in page
    (post,) = faults.sent("POST", "/api/sessions")
    assert json.loads(post.content) == {
        "id": session_id,
        "title": title,
        "model": "stub-model",
        "system_prompt": prompt,
    }
    row = changes_client.get_session(session_id)
    assert row.title == title and row.has_system_prompt is True
    event = AuditEvent.objects.get(capability="session_create")
    assert event.session_id == session_id
    assert post.headers["Idempotency-Key"] == event.idempotency_key
    assert event.evidence["system_prompt"] == {"present": True, "length": len(prompt)}
    stored = json.dumps([event.evidence, list(IdempotencyRecord.objects.values())], default=str)
    assert prompt not in stored and title not in stored


@pytest.mark.peer
def test_create_without_an_id_lets_hermes_generate_it(login, changes_client):
    reviewer = login("reviewer")
    answer = create(reviewer)
    event = AuditEvent.objects.get()
    assert event.session_id.startswith("api_")
    page = reviewer.get(answer["Location"]).content.decode()
    assert event.session_id in page and "has_system_prompt: false" in page
    assert changes_client.get_session(event.session_id).source == "api_server"


@pytest.mark.peer
def test_an_existing_id_is_session_exists(login, changes_client):
    row = make_session(changes_client)
    answer = create(login("reviewer"), session_id=row["id"], system_prompt="do not echo me")
    assert answer.status_code == 409
    page = answer.content.decode()
    assert "Nothing was created." in page and "session_exists" in page
    assert f'href="{session_url("local", row["id"])}"' in page  # read it before choosing
    assert "do not echo me" not in page  # the prompt is never sent back in an error page
    assert "system prompt is not sent back" in page


@pytest.mark.peer
def test_a_duplicate_title_is_invalid_title(login, changes_client):
    taken = make_session(changes_client, title=unique("dup"))
    session_id = unique("dup-try")
    answer = create(login("reviewer"), session_id=session_id, title=taken["title"])
    assert answer.status_code == 400
    assert f"already in use by session {taken['id']}" in answer.content.decode()
    with pytest.raises(e.NotFound):  # Hermes removed the row it had just inserted
        changes_client.get_session(session_id)


@pytest.mark.peer
def test_invalid_session_id_from_the_provider_itself(login, changes_client, monkeypatch):
    """Hermes' own invalid_session_id renders as a form error (local rules switched off,
    since they are a superset of the provider's and would refuse first)."""
    import hermes_ui.changes.forms as change_forms
    import hermes_ui.hermes.client as client_module

    monkeypatch.setattr(change_forms, "check_new_id", lambda raw: raw)
    monkeypatch.setattr(client_module, "check_new_id", lambda raw: raw)
    answer = create(login("reviewer"), session_id="\u00fc:drive")
    assert answer.status_code == 400
    assert "invalid_session_id" in answer.content.decode()
    assert AuditEvent.objects.get().error_code == "invalid_session_id"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("session_id", "../escape", "cannot contain"),
        ("session_id", "a/b", "cannot contain"),
        ("session_id", "C:evil", "drive prefix"),
        ("session_id", "\u00fc:drive", "drive prefix"),
        ("session_id", "x" * 257, "at most 256"),
        ("session_id", "   ", "only whitespace"),
        ("title", "T" * 101, "at most 100 characters"),
        ("model", "bad\x00model", "control characters"),
    ],
)
def test_local_rules_refuse_before_anything_is_sent(login, recorder, field, value, message):
    answer = create(login("reviewer"), **{field: value})
    assert answer.status_code == 400
    assert message in answer.content.decode()
    assert recorder.requests == []
    assert not AuditEvent.objects.exists()


def test_htmx_errors_swap_only_the_feedback_and_a_fresh_key(login, recorder):
    recorder.routes[("POST", "/api/sessions")] = "012_create_duplicate_id"
    reviewer = login("reviewer")
    key = form_key(reviewer.get(NEW).content.decode())
    answer = reviewer.post(
        NEW,
        {
            "key": key,
            "session_id": "peer-demo",
            "title": "",
            "model": "",
            "system_prompt": "secret words",
        },
        HTTP_HX_REQUEST="true",
    )
    html = answer.content.decode()
    assert answer.status_code == 409
    assert 'id="create-key"' in html and 'hx-swap-oob="true"' in html
    assert form_key(html) != key
    assert "<textarea" not in html and "secret words" not in html


def test_uncertain_create_then_check_what_happened(login, recorder):
    recorder.routes[("POST", "/api/sessions")] = httpx.Response(502, text="bad gateway")
    recorder.routes[("GET", "/api/sessions/maybe-made")] = httpx.Response(
        404, json={"error": {"code": "session_not_found", "message": "Session not found"}}
    )
    reviewer = login("reviewer")
    answer = create(reviewer, session_id="maybe-made")
    assert answer.status_code == 502
    assert "Outcome uncertain" in answer.content.decode()
    event = AuditEvent.objects.get()
    check = reviewer.get(f"/e/local/changes/{event.pk}/check/").content.decode()
    assert "No session from this attempt exists." in check
    assert "The session was not created." in check


@pytest.mark.peer
def test_the_providers_own_500_is_uncertain_and_reconciled(changes_client):
    """A 101-character title makes hermes-agent 0.19.0 answer 500 (a provider bug)."""
    session_id = unique("t101")
    with pytest.raises(e.ServerError) as info:
        changes_client.create_session(
            idempotency_key=mint_key(), session_id=session_id, title="T" * 101
        )
    assert info.value.uncertain
    evidence = {"requested_id": session_id, "title": None, "attempted_at": 0}
    report = check_create(changes_client, evidence)
    assert [c.state for c in report.checks] == ["no"]


@pytest.mark.peer
def test_unreachable_hermes_makes_a_create_uncertain(login, settings):
    unreachable(settings)
    reviewer = login("reviewer")
    answer = create(reviewer, session_id=unique("nowhere"))
    assert answer.status_code == 502
    assert "Check what happened" in answer.content.decode()
    event = AuditEvent.objects.get()
    assert (event.outcome, event.error_code) == ("uncertain", "transport")
    check = reviewer.get(f"/e/local/changes/{event.pk}/check/").content.decode()
    assert "Not everything could be established." in check
    assert "Hermes is unreachable" in check or "could not reach Hermes" in check


@pytest.mark.peer
def test_check_finds_a_generated_session_by_its_title(changes_client):
    title = unique("generated")
    started = time.time()
    row = changes_client.create_session(idempotency_key=mint_key(), title=title)
    report = check_create(changes_client, {"title": describe_text(title), "attempted_at": started})
    assert report.session.id == row.id
    assert report.verdict == "The session was created."


def test_support_cannot_create(login, recorder):
    support = login("support")
    assert support.get(NEW).status_code == 403
    assert support.post(NEW, {"key": mint_key()}).status_code == 403
    assert recorder.requests == []
    nav = support.get("/e/local/sessions/").content.decode()
    assert "New session" not in nav
