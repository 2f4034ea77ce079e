"""Cancelling a turn is for the person who sent it and for admins; reading it is role-wide.

Turn ids are sequential, so before this rule any support user could stop
anyone's turn by posting to ``/e/<endpoint>/turns/<n>/cancel/``.
"""

from hermes_ui.chat import hub
from tests.chat.test_faults import SID, Upstream, frames_of, serve
from tests.chat.turns import finished, only_turn, send
from tests.support.waiting import until

MESSAGE = "please summarise ticket 4711"


def _running_turn(hermes, login):
    upstream = serve(hermes, Upstream(frames_of("080_stream")[:3], then="stall"))
    send(login("support"), SID, MESSAGE)
    turn = only_turn()
    until(lambda: only_turn().state == "streaming", 10, "the turn never streamed")
    return turn, upstream


def test_another_support_user_or_a_reviewer_cannot_cancel_but_an_admin_can(
    chat_db, hermes, login, colleague
):
    turn, upstream = _running_turn(hermes, login)
    url = f"/e/local/turns/{turn.pk}/cancel/"
    assert colleague.post(url).status_code == 403
    assert colleague.post(url, HTTP_HX_REQUEST="true").status_code == 403
    assert login("reviewer").post(url, HTTP_HX_REQUEST="true").status_code == 403
    # Refused before the relay was asked: relay.cancel sets this flag synchronously.
    live = hub.get(turn.pk)
    assert live is not None and live.cancel_requested is False
    assert only_turn().state == "streaming" and not upstream.closed.is_set()

    assert login("admin").post(url, HTTP_HX_REQUEST="true").status_code == 204
    assert upstream.closed.wait(5)
    assert finished(turn.pk).state == "cancelled"


def test_the_sender_can_cancel_their_own_turn(chat_db, hermes, login):
    turn, upstream = _running_turn(hermes, login)
    answer = login("support").post(f"/e/local/turns/{turn.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 204
    assert upstream.closed.wait(5)
    assert finished(turn.pk).state == "cancelled"


def test_everyone_with_the_role_reads_a_running_turn_but_only_sender_and_admins_see_cancel(
    chat_db, hermes, login, colleague
):
    turn, _ = _running_turn(hermes, login)
    url = f"/e/local/turns/{turn.pk}/"
    pages = {
        "support": login("support").get(url),
        "admin": login("admin").get(url),
        "colleague": colleague.get(url),
    }
    for name, page in pages.items():
        assert page.status_code == 200, name
        assert MESSAGE in page.content.decode(), name  # the message is shown to the role
    assert 'class="inline cancel-form"' in pages["support"].content.decode()
    assert 'class="inline cancel-form"' in pages["admin"].content.decode()
    other = pages["colleague"].content.decode()
    assert "cancel-form" not in other
    assert "Only support, who sent this turn, or an admin can cancel it." in other
    assert login("support").post(f"/e/local/turns/{turn.pk}/cancel/").status_code == 302
    assert finished(turn.pk).state == "cancelled"


def test_a_cancel_that_cannot_reach_the_owning_worker_says_so(
    chat_db, hermes, login, settings, monkeypatch
):
    turn, upstream = _running_turn(hermes, login)
    # As seen from another worker while Redis is down: the turn is not live here.
    settings.REDIS_URL = "redis://127.0.0.1:1/0"
    monkeypatch.setattr(hub, "get", lambda turn_id: None)
    answer = login("support").post(f"/e/local/turns/{turn.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 503
    assert "could not be passed on" in answer.content.decode()
    assert not upstream.closed.is_set()  # nothing pretended to stop the turn
    # Redis is back (in this process the turn is live again): the cancel goes through.
    monkeypatch.undo()
    settings.REDIS_URL = None
    retry = login("support").post(f"/e/local/turns/{turn.pk}/cancel/", HTTP_HX_REQUEST="true")
    assert retry.status_code == 204
    assert upstream.closed.wait(5)
