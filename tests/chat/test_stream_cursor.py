"""The stream's resume cursor (``Last-Event-ID`` or ``?after=``) is ASCII digits or a 400.

``"²".isdigit()`` is true but ``int("²")`` raises: the cursor was checked with
``isdigit()`` alone, so these answered 500.
"""

import pytest
from asgiref.sync import async_to_sync

from hermes_ui.chat.models import Turn
from hermes_ui.platform.endpoints import get_endpoint


@pytest.fixture
def turn(db, mock_hermes, users):
    return Turn.objects.create(
        **get_endpoint("local").scope(),
        requested_session_id="s1",
        target_session_id="s1",
        user=users["support"],
        form_key="c" * 40,
        mode=Turn.Mode.SYNC,
        state="completed",
        message="hello",
        answer="Echo: hello",
    )


def _url(turn) -> str:
    return f"/e/local/turns/{turn.pk}/stream/"


async def _collect(chunks) -> bytes:
    return b"".join([chunk async for chunk in chunks])


@pytest.mark.parametrize("query", ["%C2%B2", "%D9%A3", "abc", "-1", "1.5", "+1", "1" * 10])
def test_a_cursor_in_the_query_that_is_not_ascii_digits_is_a_400(turn, login, query):
    answer = login("support").get(f"{_url(turn)}?after={query}")
    assert answer.status_code == 400
    assert "ASCII digits" in answer.content.decode()


@pytest.mark.parametrize("header", ["\xb2", "\u0663", "abc", "-1", "1" * 10])
def test_a_last_event_id_header_that_is_not_ascii_digits_is_a_400(turn, login, header):
    answer = login("support").get(_url(turn), headers={"Last-Event-ID": header})
    assert answer.status_code == 400
    assert "ASCII digits" in answer.content.decode()


@pytest.mark.parametrize(
    ("query", "headers"),
    [("", {}), ("?after=", {}), ("?after=0", {}), ("", {"Last-Event-ID": "3"})],
)
def test_ascii_digits_or_no_cursor_stream_the_turn(turn, login, query, headers):
    answer = login("support").get(_url(turn) + query, headers=headers)
    assert answer.status_code == 200
    body = async_to_sync(_collect)(answer.streaming_content).decode()
    assert "event: snapshot" in body and "event: end" in body
