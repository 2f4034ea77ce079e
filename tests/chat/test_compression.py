"""Turns and compression: a root's turn goes to its tip; a rotation moves the next turn."""

import pytest

from devtools.peer import demo_ids as ids
from devtools.peer.launcher import rotation_recipe
from hermes_ui.chat.models import Turn
from hermes_ui.web.links import session_url
from tests.chat.conftest import new_session, peer_messages
from tests.chat.turns import finished, send
from tests.support.peers import endpoint_for

pytestmark = [pytest.mark.peer]


def test_a_turn_on_a_compressed_root_goes_to_its_tip(chat_db, settings, fresh_peer, login):
    endpoint_for(settings, fresh_peer)
    support = login("support")
    page = support.get(session_url("local", ids.COMPRESSION_ROOT)).content.decode()
    assert f"Turns go to the compression tip {ids.COMPRESSION_TIP}" in page
    send(support, ids.COMPRESSION_ROOT, "continue the refactor")
    turn = finished(Turn.objects.get().pk)
    assert turn.requested_session_id == ids.COMPRESSION_ROOT
    assert turn.target_session_id == ids.COMPRESSION_TIP
    assert turn.state == "completed" and turn.durability["status"] == "verified"
    # The rows are where session_messages looks: the tip, reached from the root too.
    via_root = peer_messages(fresh_peer, ids.COMPRESSION_ROOT)
    assert via_root["session_id"] == ids.COMPRESSION_TIP
    assert via_root["data"][-1]["content"] == "Echo: continue the refactor"
    page = support.get(session_url("local", ids.COMPRESSION_ROOT)).content.decode()
    assert "Sent to the compression tip" in page


def test_a_rotation_during_a_turn_is_told_and_the_next_turn_follows_it(
    chat_db, settings, rotating_peer, login
):
    endpoint_for(settings, rotating_peer)
    session_id = new_session(rotating_peer, "rot")
    support = login("support")
    send(support, session_id, "some history first")
    assert finished(Turn.objects.get().pk).state == "completed"
    send(support, session_id, rotation_recipe())
    turn = finished(Turn.objects.latest("pk").pk)
    assert turn.state == "completed"
    rotated = turn.effective_session_id
    assert rotated and rotated != session_id
    assert turn.durability["status"] == "verified"
    assert turn.durability["session_id"] == rotated
    page = support.get(session_url("local", session_id)).content.decode()
    assert f'id="turn-{turn.pk}-rotated"' in page
    assert session_url("local", rotated) in page
    # The form now posts to the new session, and even a post to the old id lands there.
    form_url = session_url("local", rotated, "session_chat")
    assert f'id="chat-open" href="{form_url}"' in page
    assert f'action="{form_url}"' in support.get(form_url, headers={"HX-Request": "true"}).text
    send(support, session_id, "after the rotation")
    after = finished(Turn.objects.latest("pk").pk)
    assert after.requested_session_id == session_id
    assert after.target_session_id == rotated
    assert after.durability["status"] == "verified"
    assert peer_messages(rotating_peer, rotated)["data"][-1]["content"] == (
        "Echo: after the rotation"
    )


def test_a_turn_on_an_api_forked_parent_stays_on_the_parent(chat_db, settings, hermes_peer, login):
    # session_messages resolves a parent into its newest API fork (forks carry
    # no branch marker); the turn must not silently land on the fork.
    import uuid

    from hermes_ui.hermes.client import HermesClient

    endpoint = endpoint_for(settings, hermes_peer)
    settings.HERMES_ALLOW_CHAT_ON_CLOSED = True  # the parent is closed "branched"
    client = HermesClient(endpoint)
    parent = new_session(hermes_peer, "forked-parent")
    client.chat(parent, message="before the fork")
    child = client.fork_session(parent, idempotency_key=uuid.uuid4().hex).id
    assert peer_messages(hermes_peer, parent)["session_id"] == child
    support = login("support")
    page = support.get(session_url("local", parent)).content.decode()
    assert "Turns go to the compression tip" not in page
    assert "a descendant without a branch marker" in page
    send(support, parent, "after the fork")
    turn = finished(Turn.objects.get().pk)
    assert turn.target_session_id == parent
    assert peer_messages(hermes_peer, child)["data"][-1]["content"] != "Echo: after the fork"
