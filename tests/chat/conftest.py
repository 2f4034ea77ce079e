"""Fixtures of the chat tests: peers with special configurations and turn helpers."""

import secrets

import httpx
import pytest

from hermes_ui.chat import relay
from hermes_ui.hermes.client import use_transport
from tests.support.peers import endpoint_for, erroring_peer, rotating_peer  # noqa: F401 (fixtures)
from tests.support.samples import Recorder, response


@pytest.fixture
def chat_db(jobs_db):
    """The relay (and the job sending a turn without JavaScript) writes from its own
    thread, so tests see committed rows only.

    Depending on ``jobs_db`` makes this fixture's teardown (waiting for every
    turn to settle) run before the database is flushed.
    """
    yield
    assert relay.wait_idle(60), "a chat turn was still running at the end of the test"


@pytest.fixture
def on_peer(settings, hermes_peer):
    """Settings pointing at the shared real peer; returns a helper to make sessions."""
    endpoint_for(settings, hermes_peer)
    return hermes_peer


@pytest.fixture
def mock_hermes(mock_endpoint):
    """Every Hermes call (sync and streamed) answered from a route table: fill the
    returned ``{(method, raw path): answer}`` with responses or handlers."""
    rec = Recorder()
    with use_transport(rec.transport, rec.transport):
        yield rec.routes


@pytest.fixture
def hermes(mock_hermes):
    """``mock_hermes`` serving the captured session ``peer-demo`` and its transcript;
    tests add the chat route they need."""
    mock_hermes[("GET", "/api/sessions/peer-demo/messages")] = response("090_messages")
    mock_hermes[("GET", "/api/sessions/peer-demo")] = response("030_get")
    return mock_hermes


def new_session(peer, prefix="chat") -> str:
    session_id = f"{prefix}-{secrets.token_hex(4)}"
    response = httpx.post(
        peer.base_url + "/api/sessions",
        headers=peer.auth_headers,
        json={"id": session_id},
        timeout=10,
    )
    assert response.status_code == 201, response.text
    return session_id


def peer_messages(peer, session_id: str) -> dict:
    from urllib.parse import quote

    url = f"{peer.base_url}/api/sessions/{quote(session_id, safe='')}/messages"
    response = httpx.get(url, headers=peer.auth_headers, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def open_chat(page) -> None:
    """In a browser on a session page: "Write a message…" opens the chat form (in place
    with JavaScript, on its own page without), as a person does before typing."""
    page.click("#chat-open")
    page.wait_for_selector("#chat-form textarea[name=message]")
