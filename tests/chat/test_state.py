"""The turn record: its state machine, its lock, and turns a dead process left behind."""

import pytest
from django.db import IntegrityError, transaction

from hermes_ui.chat.durability import evaluate
from hermes_ui.chat.models import IllegalTransition, Turn, check_transition
from hermes_ui.platform.endpoints import url_fingerprint
from hermes_ui.web.links import session_url
from tests.support.samples import response


def make(**fields) -> Turn:
    values = {
        "endpoint": "local",
        "endpoint_fp": url_fingerprint("http://hermes.test"),  # mock_hermes's server
        "requested_session_id": "peer-demo",
        "target_session_id": "peer-demo",
        "form_key": "key-" + str(Turn.objects.count()),
        "message": "hi",
        "runner": "another-process",
        "state": "streaming",
        **fields,
    }
    return Turn.objects.create(**values)


@pytest.mark.parametrize(
    "current, new",
    [
        ("completed", "streaming"),
        ("streaming", "pending"),
        ("cancelled", "completed"),
        ("pending", "truncated"),
    ],
)
def test_states_only_move_forward(current, new):
    with pytest.raises(IllegalTransition):
        check_transition(current, new)


def test_a_second_running_turn_on_one_session_is_impossible(db):
    make()
    with pytest.raises(IntegrityError), transaction.atomic():
        make(state="pending")
    make(state="completed")  # finished turns do not hold the lock


def test_a_turn_left_running_by_a_dead_process_becomes_uncertain_and_frees_the_session(
    db, mock_hermes, login
):
    stale = make()
    mock_hermes[("GET", "/api/sessions/peer-demo")] = response("030_get")
    mock_hermes[("GET", "/api/sessions/peer-demo/messages")] = response("090_messages")
    page = login("support").get(session_url("local", "peer-demo")).content.decode()
    stale.refresh_from_db()
    assert stale.state == "uncertain" and stale.error_code == "dashboard_restarted"
    assert "restarted while this turn was running" in page


def test_durability_finds_the_rows_of_this_turn_only():
    payload = {
        "session_id": "s",
        "data": [
            {"id": 1, "role": "user", "content": "same"},
            {"id": 2, "role": "assistant", "content": "Echo: same"},
            {"id": 3, "role": "user", "content": "same"},
            {"id": 4, "role": "assistant", "content": ""},
            {"id": 5, "role": "tool", "content": "{}"},
            {"id": 6, "role": "assistant", "content": "Echo:  same"},
        ],
    }
    found = evaluate(payload, message="same", answer="Echo: same", after=2)
    assert (found["status"], found["user_row"], found["assistant_row"]) == ("verified", 3, 6)
    assert evaluate(payload, message="same", answer="other", after=2)["status"] == "user_only"
    assert evaluate(payload, message="else", answer=None, after=2)["status"] == "missing"
    images = [{"type": "image_url", "image_url": {"url": "https://x/y.png"}}]
    assert evaluate(payload, message=images, answer=None, after=2)["user_row"] == 3


def test_the_session_page_box_keeps_a_plain_form_for_no_javascript(db, mock_hermes, login):
    mock_hermes[("GET", "/api/sessions/peer-demo")] = response("030_get")
    mock_hermes[("GET", "/api/sessions/peer-demo/messages")] = response("090_messages")
    support = login("support")
    page = support.get(session_url("local", "peer-demo")).content.decode()
    action = session_url("local", "peer-demo", "session_chat")
    # The session page opens the form on demand: a plain link to the form's own page ...
    assert f'id="chat-open" href="{action}" hx-get="{action}"' in page
    assert 'id="chat-form"' not in page and "htmx-ext-sse-2.2.4.js" in page
    # ... which holds the plain form, posted without JavaScript.
    form_page = support.get(action).content.decode()
    assert f'method="post" action="{action}" hx-post="{action}"' in form_page
    assert 'name="form_key"' in form_page and "csrfmiddlewaretoken" in form_page
    assert "htmx-ext-sse-2.2.4.js" in form_page


def test_the_form_opened_in_place_is_the_whole_box_with_a_new_key(db, mock_hermes, login):
    support = login("support")
    action = session_url("local", "peer-demo", "session_chat")
    keys = set()
    for _ in range(2):
        box = support.get(action, headers={"HX-Request": "true"}).content.decode()
        assert box.lstrip().startswith('<section class="chat-box" id="chat"')  # replaces #chat
        assert "<html" not in box and 'id="chat-form"' in box and "chat-warning" in box
        keys.add(box.split('name="form_key" value="')[1].split('"')[0])
    assert len(keys) == 2  # each opening is a new form: its own idempotency key


def test_an_id_ending_in_chat_opens_its_own_page(db, mock_hermes, login):
    # Ids may contain "/": the id comes last, so "peer-demo/chat" is never the chat route.
    mock_hermes[("GET", "/api/sessions/peer-demo%2Fchat")] = response("030_get")
    mock_hermes[("GET", "/api/sessions/peer-demo%2Fchat/messages")] = response("090_messages")
    page = login("support").get(session_url("local", "peer-demo/chat"))
    form_url = session_url("local", "peer-demo/chat", "session_chat")
    assert page.status_code == 200 and f'id="chat-open" href="{form_url}"' in page.content.decode()


def test_a_get_on_the_chat_route_is_the_chat_form_of_that_session(db, mock_hermes, login):
    mock_hermes[("GET", "/api/sessions/peer-demo")] = response("030_get")
    mock_hermes[("GET", "/api/sessions/peer-demo/messages")] = response("090_messages")
    url = session_url("local", "peer-demo", "session_chat")
    assert url == "/e/local/chat/peer-demo/"
    page = login("support").get(url)
    assert page.status_code == 200
    assert f'action="{url}"' in page.content.decode()
