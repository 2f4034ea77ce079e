"""Outcome pages judge the moment of the change: a fork continued on its child (a chat turn
through the Hermes API, not the dashboard) still completed, and the page shows the growth."""

import httpx
import pytest

from hermes_ui.audit.models import AuditEvent
from hermes_ui.audit.redact import describe_text
from hermes_ui.changes.reconcile import messages_digest, reconcile_fork
from hermes_ui.hermes import Session
from tests.changes.conftest import make_session, unique
from tests.changes.test_fork import checks, fork

pytestmark = pytest.mark.django_db


def chat_directly(endpoint, session_id: str, message: str) -> None:
    """A turn on the session through Hermes' own API, as any other client would send it."""
    answer = httpx.post(
        f"{endpoint.base_url}/api/sessions/{session_id}/chat",
        headers={"Authorization": f"Bearer {endpoint.api_key}"},
        json={"message": message},
        timeout=60,
    )
    assert answer.status_code == 200, answer.text[:300]


@pytest.mark.peer
def test_a_fork_continued_on_its_child_still_completed(login, changes_client, changes_endpoint):
    parent = make_session(changes_client, title=unique("Moment"), chat="hello there")
    reviewer = login("reviewer")
    answer = fork(reviewer, parent["id"], child_id=unique("kid"), title=unique("Kid"))
    assert answer.status_code == 302
    event = AuditEvent.objects.get(capability="session_fork")
    child_id = event.evidence["child_id"]
    # What Hermes returned at the fork is recorded with the event.
    assert event.evidence["child_message_count"] == event.evidence["parent_message_count"] == 2
    assert event.evidence["child_digest"] == event.evidence["digest"]
    assert set(event.evidence["child_title"]) == {"present", "length", "sha256_16"}

    chat_directly(changes_endpoint, child_id, "and one more thing")
    assert len(changes_client.get_messages(child_id)["data"]) == 4  # the child grew

    page = reviewer.get(answer["Location"]).content.decode()
    assert checks(page) == {
        "Parent ended": "yes",
        "Child created": "yes",
        "Messages copied": "yes",
        "Title set": "yes",
    }
    assert "The fork completed." in page
    assert "happened only in part" not in page and "request its deletion" not in page
    assert 'id="continued">Continued since: 2 more messages.' in page


class Reads:
    """Hermes as the outcome page reads it now: a child with ``rows`` and ``title``."""

    def __init__(self, rows, title="Wanted"):
        self.rows, self.title = rows, title

    def get_session(self, session_id):
        if session_id == "p":
            return Session.from_row({"id": "p", "ended_at": 1.0, "end_reason": "branched"})
        return Session.from_row(
            {"id": "c", "parent_session_id": "p", "title": self.title, "started_at": 10.0}
        )

    def get_messages(self, session_id):
        return {"session_id": session_id, "data": self.rows}


COPIED = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
LATER = [{"role": "user", "content": "more"}, {"role": "assistant", "content": "ok"}]
EVIDENCE = {
    "child_id": "c",
    "title": describe_text("Wanted"),
    "parent_open": True,
    "parent_message_count": 2,
    "attempted_at": 10.0,
    "digest": messages_digest(COPIED),
}
AT_FORK = {
    "child_message_count": 2,
    "child_digest": messages_digest(COPIED),
    "child_title": describe_text("Wanted"),
}


def states(report) -> dict:
    return {c.label: c.state for c in report.checks}


def test_the_record_of_the_moment_decides_and_later_changes_are_news():
    grown = reconcile_fork(
        Reads(COPIED + LATER, title="Renamed since"), "p", {**EVIDENCE, **AT_FORK}
    )
    assert grown.complete and grown.verdict == "The fork completed."
    assert grown.continued == 2
    assert grown.since == ["The child has been renamed since the fork."]
    # A copy that was wrong at the moment stays wrong, whatever the child holds now.
    bad = {**AT_FORK, "child_digest": "0" * 16, "child_message_count": 1}
    wrong = reconcile_fork(Reads(COPIED), "p", {**EVIDENCE, **bad})
    assert states(wrong)["Messages copied"] == "partly" and not wrong.complete
    # A transcript rewritten since (compressed) is news, not a failed fork.
    rewritten = reconcile_fork(Reads(LATER), "p", {**EVIDENCE, **AT_FORK})
    assert rewritten.complete and rewritten.continued == 0
    assert "changed since the fork" in rewritten.since[0]


def test_without_a_record_the_copied_messages_are_the_childs_first():
    """Forks recorded before this release, or whose answer was lost: read now, past growth."""
    grown = reconcile_fork(Reads(COPIED + LATER), "p", EVIDENCE)
    assert grown.complete and grown.continued == 2
    short = reconcile_fork(Reads(COPIED[:1]), "p", EVIDENCE)
    assert states(short)["Messages copied"] == "partly"


def rename_directly(endpoint, session_id: str, title: str) -> None:
    answer = httpx.patch(
        f"{endpoint.base_url}/api/sessions/{session_id}",
        headers={"Authorization": f"Bearer {endpoint.api_key}", "Idempotency-Key": unique("k")},
        json={"title": title},
        timeout=30,
    )
    assert answer.status_code == 200, answer.text[:300]


@pytest.mark.peer
def test_a_rename_renamed_again_later_was_still_in_place(login, changes_client, changes_endpoint):
    from tests.changes.test_rename import submit

    session = make_session(changes_client, title=unique("Before"))
    support = login("support")
    assert submit(support, session["id"], op="rename", title=unique("Asked")).status_code == 302
    event = AuditEvent.objects.get(capability="session_patch")
    rename_directly(changes_endpoint, session["id"], unique("Someone else's"))
    page = support.get(f"/e/local/changes/{event.pk}/check/").content.decode()
    assert checks(page) == {"Title": "yes"}
    assert "The change is in place." in page and "did not take effect" not in page
    assert "The session has been renamed since." in page


@pytest.mark.peer
def test_a_create_renamed_later_was_still_created(login, changes_client, changes_endpoint):
    from tests.changes.test_create import create

    reviewer = login("reviewer")
    assert create(reviewer, session_id=unique("new"), title=unique("Made")).status_code == 302
    event = AuditEvent.objects.get(capability="session_create")
    assert event.evidence["title_applied"] is True
    rename_directly(changes_endpoint, event.evidence["session_id"], unique("Renamed"))
    page = reviewer.get(f"/e/local/changes/{event.pk}/check/").content.decode()
    assert checks(page) == {"Session created": "yes", "Title": "yes", "System prompt": "yes"}
    assert "The session was created." in page and "only in part" not in page
    assert "The session has been renamed since." in page
