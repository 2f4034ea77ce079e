"""A turn's memory scope (``session_key``) is shown to the turn's owner and to admins only."""

import pytest
from asgiref.sync import async_to_sync

from hermes_ui.chat.models import Turn
from hermes_ui.platform.endpoints import get_endpoint

SCOPE = "customer:4711-private-memory"


@pytest.fixture
def scoped_turn(db, mock_hermes, users):
    return Turn.objects.create(
        **get_endpoint("local").scope(),
        requested_session_id="s1",
        target_session_id="s1",
        user=users["support"],
        form_key="k" * 40,
        mode=Turn.Mode.SYNC,
        state="completed",
        message="hello",
        session_key=SCOPE,
        answer="Echo: hello",
    )


def test_the_owner_and_admins_see_the_memory_scope(scoped_turn, login):
    for name in ("support", "admin"):
        page = login(name).get(f"/e/local/turns/{scoped_turn.pk}/")
        assert page.status_code == 200
        assert f"memory scope <code>{SCOPE}</code>" in page.content.decode(), name


def test_another_support_user_sees_the_turn_but_not_its_memory_scope(scoped_turn, colleague):
    page = colleague.get(f"/e/local/turns/{scoped_turn.pk}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Echo: hello" in text  # the turn itself is shown
    assert SCOPE not in text and "memory scope" not in text


def test_the_turn_stream_shows_the_scope_to_its_owner_only(scoped_turn, login, colleague):
    def stream_of(client):
        answer = client.get(f"/e/local/turns/{scoped_turn.pk}/stream/")
        assert answer.status_code == 200
        return async_to_sync(_collect)(answer.streaming_content).decode()

    assert SCOPE in stream_of(login("support"))
    other = stream_of(colleague)
    assert "event: snapshot" in other and SCOPE not in other


async def _collect(chunks) -> bytes:
    return b"".join([chunk async for chunk in chunks])
