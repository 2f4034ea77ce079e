"""A cancel posted to one worker stops the turn another worker owns (through Redis)."""

import re

import pytest

from tests.chat.conftest import new_session
from tests.scale.conftest import on_worker, signed_in
from tests.scale.test_workers import answer_text, final_state, read_stream, start_turn

pytestmark = [pytest.mark.peer, pytest.mark.scale]


def test_a_cancel_posted_to_another_worker_stops_the_owners_turn(
    workers, support_cookies, hermes_peer
):
    a, b = workers
    browser = signed_in(a, support_cookies)
    session_id = new_session(hermes_peer, "scale-cancel")
    turn_id = start_turn(browser, session_id, "cancel me elsewhere [[slow:40]]")
    other = on_worker(browser, b)
    # Wait until the owner (worker a) is streaming, watching from worker b.
    read_stream(other, turn_id, stop_at=lambda f: "slow2" in answer_text(f))
    page = other.get(f"/e/local/turns/{turn_id}/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)
    answer = other.post(
        f"/e/local/turns/{turn_id}/cancel/", headers={"HX-Request": "true", "X-CSRFToken": token}
    )
    assert answer.status_code == 204, answer.text[:300]
    # Worker b has no relay for the turn: only the owner's heartbeat can stop it.
    frames = read_stream(other, turn_id)
    assert final_state(frames) == "cancelled", [(e, i, d[:80]) for e, i, d in frames]
    words = re.findall(r"slow\d+", frames[-2][2])
    assert "slow40" not in words, words  # stopped long before Hermes finished
    assert "state-cancelled" in browser.get(f"/e/local/turns/{turn_id}/").text
