"""Routes no session id can hijack, against the real Hermes API server.

Hermes' fork applies no path rules to child ids, and other clients share the
database, so ids such as ``x/fork`` or ``..`` exist. Each must open its own
page and its own actions, never those of another session.
"""

import html
import re
import uuid

import httpx
import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.ids import encode_path_id
from hermes_ui.index import sync
from hermes_ui.web.links import session_url
from tests.support.peers import endpoint_for

pytestmark = [pytest.mark.django_db, pytest.mark.peer]

TRICKY = [
    "x/fork",
    "x/rename",
    "x/lineage",
    "x/messages",
    "x/chat",
    ".",
    "..",
    "a%2Fb",
    "a//b",
    "ünï 会话",
]
# URL name -> the action segment that comes before the id.
ACTIONS = {
    "session_messages": "messages",
    "session_rename": "rename",
    "session_fork": "fork",
    "session_chat": "chat",
    "lineage_page": "lineage",
    "lineage_panel": "lineage-panel",
    "compare_panel": "compare-panel",
}


def _title(session_id: str) -> str:
    return f"Route probe [{session_id}]"


@pytest.fixture
def tricky_peer(settings, fresh_peer):
    """A fresh peer holding ``x`` and a fork of it under each tricky id (raw API calls:
    the dashboard's own fork form refuses such ids, Hermes does not)."""
    endpoint = endpoint_for(settings, fresh_peer)
    headers = {"Authorization": f"Bearer {fresh_peer.key}"}
    with httpx.Client(base_url=fresh_peer.base_url, headers=headers, timeout=30) as raw:
        assert raw.post("/api/sessions", json={"id": "x", "title": _title("x")}).status_code == 201
        for session_id in TRICKY:
            body = {"id": session_id, "title": _title(session_id)}
            made = raw.post("/api/sessions/x/fork", json=body)
            assert made.status_code == 201, made.text
            assert made.json()["session"]["id"] == session_id
    # The lineage views draw from the dashboard's index.
    sync.sync(endpoint, full=True)
    return endpoint


def _page(client, url: str) -> str:
    answer = client.get(url)
    assert answer.status_code == 200, (url, answer.status_code)
    return html.unescape(answer.content.decode())


def test_every_tricky_id_opens_its_own_page_and_actions(login, tricky_peer):
    reviewer = login("reviewer")
    for session_id in TRICKY:
        own = session_url("local", session_id)
        page = _page(reviewer, own)
        assert _title(session_id) in page, session_id
        for view, action in ACTIONS.items():
            url = session_url("local", session_id, view)
            # The id is the last thing in the path; the action comes first.
            assert url.startswith(f"/e/local/{action}/")
            body = _page(reviewer, url)
            # Every action page links back to (or names) this very session, never "x".
            assert own in body or _title(session_id) in body, (session_id, view)
        # The links the session page offers lead to this session's actions.
        for view in ("session_rename", "session_fork", "lineage_page"):
            assert session_url("local", session_id, view) in page, (session_id, view)


def test_forking_x_fork_forks_x_fork(login, tricky_peer, fresh_peer):
    reviewer = login("reviewer")
    child = f"child-{uuid.uuid4().hex[:8]}"
    url = session_url("local", "x/fork", "session_fork")
    answer = reviewer.post(url, {"key": mint_key(), "child_id": child, "title": ""})
    assert answer.status_code == 302
    headers = {"Authorization": f"Bearer {fresh_peer.key}"}
    row = httpx.get(
        f"{fresh_peer.base_url}/api/sessions/{encode_path_id(child)}", headers=headers, timeout=30
    ).json()["session"]
    assert row["parent_session_id"] == "x/fork"
    # And the dotted ids reach their own fork form through the query route.
    form = _page(reviewer, session_url("local", "..", "session_fork"))
    assert _title("..") in form
    assert re.search(r'action="/e/local/fork/\?id=\.\.', form)
