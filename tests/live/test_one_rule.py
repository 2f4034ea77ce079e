"""Live streams ask the one rule (issue 48): a hidden session's stream is 404, a
source-limited person hears only of their sessions, and a grant taken away ends
an open stream at the next check."""

from __future__ import annotations

import pytest
from asgiref.sync import async_to_sync, sync_to_async

from hermes_ui.access import grants
from hermes_ui.access.rules import access_of
from hermes_ui.hermes.client import use_transport
from hermes_ui.live import changes as c
from hermes_ui.live import channel, fanout, notice_feed
from hermes_ui.live.views import seen_changes
from tests.live.test_listeners import RECHECK, _rest
from tests.live.test_stream import _until, frames
from tests.review.access_world import CANARY, EU_CRON, EU_HIDDEN, build

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def live_world(settings, transactional_db, monkeypatch):
    settings.HERMES_UI_LIVE_RECHECK_SECONDS = RECHECK
    monkeypatch.setattr(fanout, "TICK", 0.05)
    monkeypatch.setattr(notice_feed, "TICK", 0.05)
    made = build(settings)
    with use_transport(made.fake.transport):
        yield made


def test_a_change_names_only_the_sessions_a_limited_person_may_see(live_world):
    payload = {"id": 1, "changes": [[EU_CRON, [c.NEW]], [EU_HIDDEN, [c.NEW]]], "more": 0}
    pat, eve = live_world.people["pat"], live_world.people["eve"]
    assert seen_changes("eu", access_of(pat), payload)["changes"] == [[EU_CRON, [c.NEW]]]
    assert seen_changes("eu", access_of(eve), payload) == payload


def test_a_stream_of_a_session_or_endpoint_one_may_not_see_is_404(live_world):
    pat = live_world.client("pat")
    hidden = pat.get(f"/e/eu/live/?session={EU_HIDDEN}")
    assert hidden.status_code == 404
    assert CANARY.encode() not in hidden.content.replace(EU_HIDDEN.encode(), b"")
    assert pat.get("/e/us/live/").status_code == 404


def test_a_limited_stream_carries_only_their_sessions(live_world):
    answer = live_world.client("pat").get("/e/eu/live/")

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await sync_to_async(channel.publish)("eu", [[EU_HIDDEN, [c.NEW]]])
        mine = await sync_to_async(channel.publish)(
            "eu", [[EU_HIDDEN, [c.NEW]], [EU_CRON, [c.NEW]]]
        )
        text = await _until(chunks, lambda t: "event: changes" in t)
        await chunks.aclose()
        return text, mine.id

    text, mine = async_to_sync(run)()
    assert CANARY not in text
    assert frames(text, "changes") == [{"id": mine, "changes": [[EU_CRON, [c.NEW]]], "more": 0}]


def test_a_revoked_grant_ends_an_open_stream(live_world):
    eve = live_world.people["eve"]
    grants.grant("us", "support", user=eve)  # she keeps a role elsewhere
    answer = live_world.client("eve").get("/e/eu/live/")

    async def run():
        chunks = answer.streaming_content
        await _until(chunks, lambda t: "retry:" in t)
        await sync_to_async(grants.revoke)("eu", user=eve)
        return await _rest(chunks)

    assert frames(async_to_sync(run)(), "end") == [{"reason": "access_changed"}]


def test_an_endpoint_admin_hears_of_their_endpoints_deletion_requests_only(live_world):
    from hermes_ui.live import notices
    from hermes_ui.platform import events

    mark = notices.last_id()
    ursula = live_world.people["ursula"].pk
    for request_id, endpoint in [(1, "us"), (2, "eu")]:
        events.emit(
            events.DELETION_REQUESTED,
            endpoint=endpoint,
            actor=ursula,
            users=[ursula],
            ids={"request_id": request_id},
        )
    euadmin = live_world.client("euadmin").get(f"/live/deletions/?after={mark}")
    root = live_world.client("root").get(f"/live/deletions/?after={mark}")

    def heard(answer, count):
        async def run():
            text = await _until(
                answer.streaming_content, lambda t: t.count("event: notice") >= count
            )
            await answer.streaming_content.aclose()
            return text

        return [f["request_id"] for f in frames(async_to_sync(run)(), "notice")]

    assert heard(root, 2) == [1, 2]  # both were written and can be heard
    assert heard(euadmin, 1) == [2]  # the missed notices are read at once: us's is not there
