"""The smoke set of the release matrix: the main pages and actions on hermes-agent 0.15.2
and 0.17.0 (the full suite runs on 0.19.0). One seeded peer per release."""

import json
import re

import pytest
from django.urls import reverse

from devtools.peer import demo_ids as ids
from hermes_ui.audit.models import AuditEvent
from hermes_ui.chat.models import Turn
from hermes_ui.hermes.client import HermesClient
from hermes_ui.web.links import session_url
from tests.changes.conftest import form_key, make_session, unique
from tests.chat.conftest import new_session
from tests.chat.turns import finished, send
from tests.jobs import helpers as jobs
from tests.support.peers import index

pytestmark = [pytest.mark.peer, pytest.mark.release, pytest.mark.usefixtures("smoke_chat_db")]


@pytest.fixture
def smoke_chat_db(jobs_db):
    from hermes_ui.chat import relay

    yield
    assert relay.wait_idle(60), "a chat turn was still running at the end of the test"


@pytest.fixture
def smoke_hermes(release_endpoint):
    client = HermesClient(release_endpoint)
    yield client
    client.close()


def test_browse_search_and_lineage(release_endpoint, login):
    index(release_endpoint)
    support = login("support")
    listing = support.get(reverse("session_list", kwargs={"endpoint": "local"}))
    assert listing.status_code == 200
    assert ids.DELEGATE_TITLE in listing.content.decode()
    found = support.get(
        reverse("session_list", kwargs={"endpoint": "local"}), {"q": ids.COMPRESSION_TITLE}
    )
    assert found.status_code == 200 and ids.COMPRESSION_TITLE in found.content.decode()
    lineage = support.get(session_url("local", ids.DELEGATE_PARENT, "lineage_page"))
    html = lineage.content.decode()
    assert lineage.status_code == 200
    for child in (*ids.DELEGATE_CHILDREN, ids.DELEGATE_BRANCH):
        assert child in html


def test_compression_names_the_live_tip_and_chats_there(
    release_peer, release_endpoint, login, smoke_hermes
):
    """0.15.2 returns the root's own rows for /messages; 0.17.0 the tip's. Either way the
    page names the tip, the chat box posts to it, and no operator setting is advised.
    (The index's lineage names the tip: its sync reads no transcript; the browse test's
    does, on each release.)"""
    index(release_endpoint, transcripts=False)
    support = login("support")
    page = support.get(session_url("local", ids.COMPRESSION_ROOT))
    html = page.content.decode()
    assert page.status_code == 200
    assert "HERMES_ALLOW_CHAT_ON_CLOSED" not in html
    assert session_url("local", ids.COMPRESSION_TIP) in html
    resolved = smoke_hermes.get_messages(ids.COMPRESSION_ROOT)["session_id"]
    # 0.15.2 does not follow the chain for /messages; 0.17.0 does.
    assert (resolved == ids.COMPRESSION_ROOT) is (release_peer.version == "0.15.2")
    if resolved == ids.COMPRESSION_ROOT:
        assert 'id="live-tip"' in html
        form_url = session_url("local", ids.COMPRESSION_TIP, "session_chat")
        assert f'id="chat-open" href="{form_url}"' in html  # the form it opens posts there
        opened = support.get(form_url, headers={"HX-Request": "true"}).content.decode()
        assert f'action="{form_url}"' in opened
    else:
        assert 'id="resolved-note"' in html


def test_rename_close_create_and_fork(release_endpoint, login, smoke_hermes):
    row = make_session(smoke_hermes, title=unique("smoke"))
    support, reviewer = login("support"), login("reviewer")
    edit = session_url("local", row["id"], "session_rename")
    key = form_key(support.get(edit).content.decode())
    wanted = unique("renamed")
    assert support.post(edit, {"key": key, "op": "rename", "title": wanted}).status_code == 302
    assert smoke_hermes.get_session(row["id"]).title == wanted
    key = form_key(support.get(edit).content.decode())
    closed = support.post(edit, {"key": key, "op": "close", "reason": "resolved"})
    assert closed.status_code == 302
    assert smoke_hermes.get_session(row["id"]).end_reason == "resolved"

    new = reverse("session_create", kwargs={"endpoint": "local"})
    key = form_key(reviewer.get(new).content.decode())
    made_id = unique("made")
    fields = {"session_id": made_id, "title": unique("Made"), "model": "", "system_prompt": ""}
    assert reviewer.post(new, {"key": key, **fields}).status_code == 302
    assert smoke_hermes.get_session(made_id).id == made_id

    parent = make_session(smoke_hermes, title=unique("Parent"), chat="hello")
    fork = session_url("local", parent["id"], "session_fork")
    key = form_key(reviewer.get(fork).content.decode())
    child = unique("kid")
    answer = reviewer.post(fork, {"key": key, "child_id": child, "title": unique("Kid")})
    assert answer.status_code == 302
    assert smoke_hermes.get_session(child).parent_id == parent["id"]
    assert smoke_hermes.get_session(parent["id"]).end_reason == "branched"
    assert AuditEvent.objects.get(capability="session_fork").outcome == "success"


def test_streamed_and_plain_chat(release_peer, release_endpoint, login):
    session_id = new_session(release_peer)
    support = login("support")
    streamed = send(support, session_id, "hello stream")
    assert (
        streamed.status_code == 200 and 'sse-connect="/e/local/turns/' in streamed.content.decode()
    )
    turn = finished(Turn.objects.get().pk)
    assert (turn.state, turn.answer) == ("completed", "Echo: hello stream")
    assert turn.durability["status"] == "verified"

    plain = jobs.follow(support, send(support, session_id, "hello plain", htmx=False))
    assert plain.status_code == 302
    sync = Turn.objects.get(mode="sync")
    assert (sync.state, sync.answer) == ("completed", "Echo: hello plain")
    # 0.15.2's run.completed carries no messages: the turn is still read back from Hermes.
    assert sync.durability["status"] == "verified"
    events = AuditEvent.objects.filter(capability__in=["session_chat", "session_chat_stream"])
    assert sorted(events.values_list("outcome", flat=True)) == ["success", "success"]
    assert "hello" not in json.dumps([e.evidence for e in events])
    assert re.search(r"Echo: hello plain", support.get(plain["Location"]).content.decode())
