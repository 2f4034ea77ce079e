"""New since I looked, and erasure, against the real Hermes peer."""

import uuid

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.deletion.models import Status
from hermes_ui.hermes import errors as e
from hermes_ui.index import sync
from hermes_ui.tags.models import SessionTag, Tag
from hermes_ui.watermarks.models import Watermark
from hermes_ui.web.links import session_url
from tests.deletion.helpers import decide, execute, refresh, request_deletion

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def _session(client, title: str) -> str:
    sid = f"triage-{uuid.uuid4().hex[:10]}"
    client.create_session(idempotency_key=mint_key(), session_id=sid, title=f"{title} {sid}")
    client.chat(sid, message="first question")
    return sid


def _new(client) -> str:
    answer = client.get("/e/local/sessions/", {"q": "new:yes"})
    assert answer.status_code == 200
    return answer.content.decode()


def test_a_turn_by_one_user_is_new_for_another_until_they_open_it(
    triage_endpoint, triage_client, login
):
    sid = _session(triage_client, "Watched")
    other = _session(triage_client, "Unwatched")
    sync.sync(triage_endpoint, full=True)
    reviewer, support = login("reviewer"), login("support")
    assert reviewer.get(session_url("local", sid)).status_code == 200
    seen = Watermark.objects.get(session_id=sid)
    assert seen.message_count == triage_client.get_session(sid).message_count == 2
    # Someone else (here straight through the Hermes client) continues the session.
    triage_client.chat(sid, message="a follow-up from a colleague")
    assert f'"Select {sid}"' not in _new(reviewer)  # the index has not seen it yet
    sync.sync(triage_endpoint, full=False)
    html = _new(reviewer)
    assert "1 matching session." in html and f'"Select {sid}"' in html
    assert ">new 2</span>" in html
    assert f'"Select {other}"' not in html  # never opened: not new
    # The colleague never opened it: nothing is new for them.
    assert "0 matching sessions" in _new(support)
    assert ">new 2<" not in support.get("/e/local/sessions/", {"view": "all"}).content.decode()
    # Opening the session page moves the watermark and clears the mark.
    assert reviewer.get(session_url("local", sid)).status_code == 200
    assert Watermark.objects.get(session_id=sid).message_count == 4
    assert "0 matching sessions" in _new(reviewer)


def test_an_executed_deletion_erases_tags_and_watermarks(triage_endpoint, triage_client, login):
    sid = _session(triage_client, "Doomed")
    keep = _session(triage_client, "Kept")
    sync.sync(triage_endpoint, full=True)
    reviewer, admin, admin2 = login("reviewer"), login("admin"), login("admin2")
    tag = Tag.objects.create(name="doomed")
    for session_id in (sid, keep):
        reviewer.get(session_url("local", session_id))
        reviewer.post(
            session_url("local", session_id, "session_tags"), {"op": "add", "tag": tag.pk}
        )
    admin.get(session_url("local", sid))
    assert Watermark.objects.filter(session_id=sid).count() == 2
    assert SessionTag.objects.filter(session_id=sid).count() == 1

    case = request_deletion(login("support"), sid, "The customer asked us to erase it")
    assert decide(admin, case.pk).status_code == 302
    assert execute(admin2, case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED
    with pytest.raises(e.NotFound):
        triage_client.get_session(sid)
    assert case.result["erased"]["session_tags"] == 1
    assert case.result["erased"]["watermarks"] == 2
    assert not Watermark.objects.filter(session_id=sid).exists()
    assert not SessionTag.objects.filter(session_id=sid).exists()
    assert Watermark.objects.filter(session_id=keep).count() == 1
    assert SessionTag.objects.filter(session_id=keep).count() == 1
