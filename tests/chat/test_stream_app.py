"""The real app under uvicorn: the browser side of a turn can drop and come back."""

import html
import re

import pytest

from tests.chat.conftest import new_session, peer_messages
from tests.chat.ui import Ui, stream_url

pytestmark = [pytest.mark.peer]


def answer_of(snapshot: str) -> str:
    found = re.search(r'class="answer[^"]*" id="turn-\d+-answer">(.*?)</div>', snapshot, re.S)
    return html.unescape(re.sub(r"<[^>]+>", "", found.group(1))).strip()


def test_reconnects_and_reloads_replay_what_was_received_and_never_rerun_the_turn(
    dashboard, hermes_peer
):
    session_id = new_session(hermes_peer)
    ui = Ui(dashboard)
    key = ui.form_key(session_id)
    message = "reconnect me [[slow:10]]"
    url = stream_url(ui.send(session_id, message, key))

    # First connection: a snapshot, then a few deltas; then the browser drops.
    seen, last_id = "", None
    frames = ui.frames(url)
    first = next(frames)
    assert first.event == "snapshot"
    for frame in frames:
        if frame.event == "delta":
            seen += html.unescape(frame.data)
            last_id = frame.id
            if seen.count("slow") == 3:
                break
    frames.close()
    assert seen == "slow1 slow2 slow3 "

    # A reload of the page and a resubmission of the same form: same turn, no new one.
    page = ui.session_page(session_id)
    assert stream_url(page) == url
    assert stream_url(ui.send(session_id, message, key)) == url

    # The browser's automatic reconnect carries Last-Event-ID: only what is missing follows.
    rest = ""
    for frame in ui.frames(url, last_event_id=last_id):
        if frame.event == "delta":
            assert frame.id > last_id
            rest += html.unescape(frame.data)
        elif frame.event == "snapshot":
            final = frame.data
        elif frame.event == "end":
            break
    assert seen + rest == "slow1 slow2 slow3 slow4 slow5 slow6 slow7 slow8 slow9 slow10 "
    assert 'data-state="completed"' in final
    assert 'data-durability="verified"' in final

    # A fresh connection after the end replays the stored turn and closes.
    replay = list(ui.frames(url))
    assert [f.event for f in replay] == ["snapshot", "end"]
    assert (
        answer_of(replay[0].data) == "slow1 slow2 slow3 slow4 slow5 slow6 slow7 slow8 slow9 slow10"
    )

    # Hermes ran the turn exactly once.
    rows = peer_messages(hermes_peer, session_id)["data"]
    assert [r["content"] for r in rows if r["role"] == "user"] == [message]


def test_a_second_tab_is_refused_while_a_turn_runs(dashboard, hermes_peer):
    session_id = new_session(hermes_peer)
    first, second = Ui(dashboard), Ui(dashboard, "reviewer")
    url = stream_url(first.send(session_id, "tab one [[slow:5]]", first.form_key(session_id)))
    refused = second.send(session_id, "tab two", second.form_key(session_id), expect=409)
    assert 'data-code="turn_running"' in refused and stream_url(refused) == url
    assert [f.event for f in first.frames(url)][-1] == "end"
    rows = peer_messages(hermes_peer, session_id)["data"]
    assert [r["content"] for r in rows if r["role"] == "user"] == ["tab one [[slow:5]]"]
