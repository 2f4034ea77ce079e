"""Turns the dashboard or Hermes refuses: shown on the form or as a notice, never sent twice."""

import httpx
import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.models import AuditEvent
from hermes_ui.chat import compose
from hermes_ui.chat.models import Turn
from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, peer_messages
from tests.chat.turns import finished, only_turn, send
from tests.jobs import helpers as jobs
from tests.support.peers import unreachable
from tests.support.samples import response


@pytest.mark.parametrize("htmx", [True, False])
def test_an_empty_message_is_refused_on_the_form_before_anything_is_sent(
    db, mock_hermes, login, htmx
):
    result = send(login("support"), "s1", "   ", htmx=htmx)
    assert result.status_code == 400
    page = result.content.decode()
    assert 'id="error-message" data-codes="missing_message"' in page
    assert "Type a message" in page
    assert Turn.objects.count() == 0


def test_a_bad_image_url_is_refused_on_its_field(db, mock_hermes, login):
    result = send(login("support"), "s1", "look", image_urls="ftp://example.com/x.png")
    page = result.content.decode()
    assert 'id="error-image_urls"' in page and "http://, https:// or data:image/" in page
    assert '<details class="chat-options" open>' in page  # the options open on their error
    assert Turn.objects.count() == 0


def test_a_forged_form_without_its_key_is_refused(db, mock_hermes, login):
    result = send(login("support"), "s1", "hello", key="short")
    assert result.status_code == 400
    assert "submission key" in result.content.decode()
    assert Turn.objects.count() == 0


def test_chat_needs_the_support_role(db, mock_hermes, django_user_model):
    from django.test import Client

    nobody = django_user_model.objects.create_user("nobody", password="x" * 12)
    client = Client()
    client.force_login(nobody)
    assert send(client, "s1", "hello").status_code == 403
    assert client.get("/e/local/turns/1/").status_code == 403
    assert client.get("/e/local/turns/1/stream/").status_code == 403


@pytest.mark.peer
@pytest.mark.parametrize("htmx", [True, False])
def test_a_content_part_hermes_refuses_lands_on_the_form_and_nothing_ran(
    chat_db, on_peer, login, monkeypatch, htmx
):
    # Pretend the dashboard's own check missed this URL, so Hermes' refusal is exercised.
    monkeypatch.setattr(
        compose.ChatForm, "clean_image_urls", lambda self: self.cleaned_data["image_urls"].split()
    )
    session_id = new_session(on_peer)
    support, key = login("support"), "r" * 24
    result = send(
        support, session_id, "look", image_urls="ftp://example.com/a.png", htmx=htmx, key=key
    )
    if not htmx:
        # Without JavaScript the job sending it ends on the turn's page, which says so.
        result = jobs.follow(support, result)
        assert result["Location"] == f"/e/local/turns/{only_turn().pk}/"
        turn_page = support.get(result["Location"]).content.decode()
        assert "Hermes refused this turn: Image inputs must use http(s) URLs" in turn_page
    else:
        assert result.status_code == 400  # a refused form
        page = result.content.decode()
        assert 'id="error-image_urls"' in page
        assert "Image inputs must use http(s) URLs" in page  # Hermes' own words
        assert f'id="turn-{only_turn().pk}"' not in page  # a refused turn is not shown as a turn
    turn = only_turn()
    assert turn.rejected and turn.state == "failed" and turn.error_code == "invalid_image_url"
    assert peer_messages(on_peer, session_id)["data"] == []
    assert AuditEvent.objects.get(error_code="invalid_image_url").outcome == "rejected"
    # Resubmitting the same form shows the same refusal without asking Hermes again.
    replay = send(
        support, session_id, "look", image_urls="ftp://example.com/a.png", htmx=htmx, key=key
    )
    assert replay.status_code == 400  # with or without htmx: the refusal on its field
    again = replay.content.decode()
    assert 'id="error-image_urls"' in again
    assert "Image inputs must use http(s) URLs" in again and Turn.objects.count() == 1


@pytest.mark.peer
def test_a_closed_session_is_refused_and_says_why(chat_db, on_peer, login):
    support = login("support")
    page = support.get(session_url("local", ids.CUSTOM_END)).content.decode()
    assert 'id="chat-closed"' in page and ids.CUSTOM_END_REASON in page
    assert 'id="chat-open"' not in page
    before = len(peer_messages(on_peer, ids.CUSTOM_END)["data"])
    result = send(support, ids.CUSTOM_END, "please continue")
    assert result.status_code == 409  # the htmx answer is a conflict, swapped in place
    text = result.content.decode()
    assert 'data-code="session_closed"' in text and "HERMES_ALLOW_CHAT_ON_CLOSED" in text
    assert Turn.objects.count() == 0
    assert len(peer_messages(on_peer, ids.CUSTOM_END)["data"]) == before
    assert AuditEvent.objects.get(error_code="session_closed").outcome == "refused"


@pytest.mark.peer
def test_an_operator_can_allow_chat_on_closed_sessions(chat_db, on_peer, login, settings):
    settings.HERMES_ALLOW_CHAT_ON_CLOSED = True
    session_id = new_session(on_peer)
    httpx.patch(
        f"{on_peer.base_url}/api/sessions/{session_id}",
        headers=on_peer.auth_headers,
        json={"end_reason": "client_closed"},
        timeout=10,
    )
    support = login("support")
    assert 'id="chat-open"' in support.get(session_url("local", session_id)).content.decode()
    send(support, session_id, "still here")
    assert finished(only_turn().pk).state == "completed"


@pytest.mark.peer
def test_a_branched_parent_points_to_its_branches(chat_db, on_peer, login):
    result = send(login("support"), ids.BRANCH_PARENT, "more")
    assert result.status_code == 409
    text = result.content.decode()
    assert "branched" in text and "continue in one of its branches" in text


# -- what the real peer cannot produce: a 403 for the memory scope ---------------


def test_a_403_for_the_memory_scope_is_explained_on_its_field(chat_db, mock_hermes, login):
    # The real peer always has an API key, so it never refuses X-Hermes-Session-Key.
    mock_hermes[("GET", "/api/sessions/peer-demo/messages")] = response("090_messages")
    mock_hermes[("GET", "/api/sessions/peer-demo")] = response("030_get")
    forbidden = httpx.Response(
        403,
        json={
            "error": {
                "message": "X-Hermes-Session-Key requires API key authentication. Configure "
                "API_SERVER_KEY to enable this feature.",
                "type": "invalid_request_error",
            }
        },
    )
    seen = []

    def stream(request):
        seen.append(request.headers.get("X-Hermes-Session-Key"))
        return forbidden

    mock_hermes[("POST", "/api/sessions/peer-demo/chat/stream")] = stream
    result = send(login("support"), "peer-demo", "remember this", session_key="support:case")
    assert result.status_code == 400
    page = result.content.decode()
    assert seen == ["support:case"]
    assert 'id="error-session_key"' in page
    assert (
        "HTTP 403" in page and "API_SERVER_KEY" in page and "leave the memory scope empty" in page
    )
    turn = only_turn()
    assert turn.rejected and turn.error_code == "session_key_forbidden"


def test_hermes_unreachable_when_sending_shows_a_banner_and_starts_nothing(
    chat_db, settings, login
):
    unreachable(settings)
    settings.HERMES_READ_RETRIES = 0
    support = login("support")
    plain = send(support, "s1", "hello", htmx=False)
    assert plain.status_code == 502
    assert "Hermes is unreachable" in plain.content.decode()
    boxed_answer = send(support, "s1", "hello")
    assert boxed_answer.status_code == 502  # the box shows the failure, with its status
    boxed = boxed_answer.content.decode()
    assert 'id="hermes-error"' in boxed and 'data-code="transport"' in boxed
    assert Turn.objects.count() == 0
