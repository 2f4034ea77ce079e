"""Chat answers of Hermes after 0.19 (from its api_server.py; 0.19.0 sends none of them):
429 ``rate_limit_exceeded`` at its cap of concurrent runs and 202
``hermes.session.chat.queued``, against scripted answers (httpx.MockTransport)."""

import asyncio

import httpx
import pytest

from hermes_ui.hermes import errors as e
from tests.hermes.test_hermes_client import collect, make, stream_client
from tests.support.fakes import error

QUEUED = {"object": "hermes.session.chat.queued", "session_id": "peer-demo"}


def busy(request, retry_after="7"):
    answer = error(429, "rate_limit_exceeded", "Too many concurrent runs")
    if retry_after:
        answer.headers["Retry-After"] = retry_after
    return answer


def test_a_busy_hermes_refused_the_turn_before_it_ran():
    client, rec = make(default=busy)
    with pytest.raises(e.RateLimited) as raised:
        client.chat("peer-demo", message="hi")
    failure = raised.value
    assert not failure.uncertain and failure.retry_after == 7.0
    assert failure.message == (
        "Hermes is busy: it runs as many turns at once as it allows. Nothing ran; try again in 7 s."
    )
    assert len(rec.requests) == 1  # a turn is never sent twice


def test_a_busy_hermes_without_retry_after_says_shortly():
    client, _ = make(default=lambda r: busy(r, retry_after=""))
    with pytest.raises(e.RateLimited) as raised:
        client.chat("peer-demo", message="hi")
    assert raised.value.message.endswith("Nothing ran; try again shortly.")


def test_another_429_on_a_turn_stays_uncertain():
    client, _ = make(default=lambda r: error(429, "rate_limited", "slow down"))
    with pytest.raises(e.RateLimited) as raised:
        client.chat("peer-demo", message="hi")
    assert raised.value.uncertain


def test_a_queued_turn_is_uncertain_not_a_malformed_answer():
    client, _ = make(default=lambda r: httpx.Response(202, json=QUEUED))
    with pytest.raises(e.Queued) as raised:
        client.chat("peer-demo", message="hi")
    assert raised.value.uncertain and raised.value.code == "chat_queued"
    assert "Hermes queued this turn" in raised.value.message


def test_a_streamed_turn_queued_or_refused_as_busy_is_told_apart():
    queued = stream_client(lambda r: httpx.Response(202, json=QUEUED))
    with pytest.raises(e.Queued):
        asyncio.run(collect(queued))
    refused = stream_client(busy)
    with pytest.raises(e.RateLimited) as raised:
        asyncio.run(collect(refused))
    assert not raised.value.uncertain and "Hermes is busy" in raised.value.message
