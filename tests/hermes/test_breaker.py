"""The per-endpoint circuit breaker: open after repeated timeouts, one trial per period.

In process memory, and shared through a real Redis (``tests/support/redis_server.py``)
by every worker; with Redis configured but gone, each process keeps its own
and nothing raises.
"""

import logging
import re
import time
from datetime import UTC, datetime

import httpx
import pytest
from django.utils import timezone

from hermes_ui.hermes import breaker
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform import redis_link
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.peers import unreachable_url
from tests.support.samples import response

ENDPOINT = Endpoint("local", "http://hermes.test", TEST_KEY)
OTHER = Endpoint("other", "http://other.test", TEST_KEY)
FAILURES = 3
PERIOD = 0.4


class Hermes:
    """A transport whose server is ``down`` (times out), ``up``, or answers ``status``."""

    def __init__(self):
        self.mode = "down"
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.mode == "down":
            raise httpx.ConnectTimeout("down", request=request)
        if self.mode == "refused":
            raise httpx.ConnectError("refused", request=request)
        if isinstance(self.mode, int):
            return httpx.Response(self.mode, json={"error": {"code": "x", "message": "x"}})
        return response("030_get")

    def client(self, endpoint=ENDPOINT, **kwargs) -> HermesClient:
        kwargs.setdefault("read_retries", 0)
        kwargs.setdefault("retry_backoff", 0.0)
        return HermesClient(endpoint, transport=httpx.MockTransport(self), **kwargs)


@pytest.fixture(autouse=True)
def breaker_settings(settings):
    settings.HERMES_BREAKER_FAILURES = FAILURES
    settings.HERMES_BREAKER_RETRY_SECONDS = PERIOD


@pytest.fixture
def redis_state(monkeypatch):
    """This test's Redis outages end with it (``redis_link`` keeps them per process)."""
    monkeypatch.setattr(redis_link, "_down_until", 0.0)
    monkeypatch.setattr(redis_link.OUTAGE, "_since", None)
    # Each Breaker object re-reads the shared state on every call.
    monkeypatch.setattr(breaker, "REFRESH_SECONDS", 0.0)


def fail(client, times=FAILURES):
    for _ in range(times):
        with pytest.raises((e.Timeout, e.TransportFailure)):
            client.get_session("peer-demo")


def hh_mm(wall: float) -> str:
    return timezone.localtime(datetime.fromtimestamp(wall, tz=UTC)).strftime("%H:%M")


def test_after_the_threshold_the_endpoint_fails_fast_without_being_asked():
    hermes = Hermes()
    client = hermes.client()
    opened = time.time()
    fail(client)
    assert hermes.calls == FAILURES
    started = time.monotonic()
    with pytest.raises(e.Unresponsive) as info:
        client.get_session("peer-demo")
    assert time.monotonic() - started < 0.1
    assert hermes.calls == FAILURES  # the transport was not touched
    error = info.value
    assert error.status == 503 and error.code == "endpoint_unresponsive"
    assert "is not answering since" in error.message
    since = re.search(r"since (\d\d:\d\d)", error.message).group(1)
    assert since in {hh_mm(opened), hh_mm(time.time())}
    assert breaker.status(ENDPOINT).open


def test_one_failure_short_of_the_threshold_keeps_it_closed():
    hermes = Hermes()
    client = hermes.client()
    fail(client, FAILURES - 1)
    hermes.mode = "up"
    assert client.get_session("peer-demo").id == "peer-demo"
    assert breaker.status(ENDPOINT) == breaker.Status()


def test_an_open_breaker_fails_at_once_even_with_retries_and_backoff_left(monkeypatch):
    import tenacity

    monkeypatch.setattr(tenacity.wait.random, "uniform", lambda low, high: high)
    hermes = Hermes()
    fail(hermes.client())
    started = time.monotonic()
    with pytest.raises(e.Unresponsive):
        hermes.client(read_retries=2, retry_backoff=1.0).get_session("peer-demo")
    assert time.monotonic() - started < 0.5  # no backoff between refusals of its own


def test_one_trial_per_period_a_failed_one_keeps_it_open_a_good_one_closes_it():
    hermes = Hermes()
    client = hermes.client()
    fail(client)
    time.sleep(PERIOD + 0.05)
    # The trial goes out, and fails: still open, no second trial this period.
    with pytest.raises(e.Timeout):
        client.get_session("peer-demo")
    assert hermes.calls == FAILURES + 1
    with pytest.raises(e.Unresponsive):
        client.get_session("peer-demo")
    assert hermes.calls == FAILURES + 1
    state = breaker.status(ENDPOINT)
    assert state.open and 0 < state.next_trial_in <= PERIOD
    # The next period's trial succeeds: closed, no restart needed.
    time.sleep(PERIOD + 0.05)
    hermes.mode = "up"
    assert client.get_session("peer-demo").id == "peer-demo"
    assert breaker.status(ENDPOINT) == breaker.Status()
    for _ in range(FAILURES + 1):
        client.get_session("peer-demo")
    assert hermes.calls == FAILURES + 1 + 1 + FAILURES + 1


def test_only_one_of_several_calls_is_the_trial():
    hermes = Hermes()
    client = hermes.client()
    fail(client)
    time.sleep(PERIOD + 0.05)
    hermes.mode = "up"
    # The first call after the period is the trial; until it has answered,
    # the others of the same period are refused.
    guard = breaker.breaker_for(ENDPOINT)
    assert guard.admit() is True
    with pytest.raises(e.Unresponsive):
        client.get_session("peer-demo")
    assert hermes.calls == FAILURES


@pytest.mark.parametrize("status", [500, 404, 401, 502, 503])
def test_http_error_answers_are_not_strikes(status):
    hermes = Hermes()
    hermes.mode = status
    client = hermes.client()
    for _ in range(FAILURES * 2):
        with pytest.raises(e.HermesError) as info:
            client.get_session("peer-demo")
        assert info.value.status == status
    assert hermes.calls == FAILURES * 2
    assert not breaker.status(ENDPOINT).open


def test_an_answer_between_timeouts_starts_the_count_again():
    hermes = Hermes()
    client = hermes.client()
    fail(client, FAILURES - 1)
    hermes.mode = 404
    with pytest.raises(e.NotFound):
        client.get_session("peer-demo")
    hermes.mode = "down"
    fail(client, FAILURES - 1)
    assert not breaker.status(ENDPOINT).open
    assert breaker.status(ENDPOINT).failures == FAILURES - 1


def test_connection_failures_count_like_timeouts_and_only_for_their_endpoint():
    hermes, other = Hermes(), Hermes()
    hermes.mode, other.mode = "refused", "up"
    fail(hermes.client())
    with pytest.raises(e.Unresponsive):
        hermes.client().get_session("peer-demo")
    assert other.client(OTHER).get_session("peer-demo").id == "peer-demo"
    assert not breaker.status(OTHER).open


def test_a_failed_operation_is_one_strike_however_many_attempts_it_made():
    hermes = Hermes()
    fail(hermes.client(read_retries=2), FAILURES - 1)
    assert hermes.calls == (FAILURES - 1) * 3
    assert breaker.status(ENDPOINT).failures == FAILURES - 1


def test_a_new_url_for_the_id_starts_with_a_closed_breaker():
    hermes = Hermes()
    fail(hermes.client())
    moved = Endpoint("local", "http://elsewhere.test", TEST_KEY)
    hermes.mode = "up"
    assert hermes.client(moved).get_session("peer-demo").id == "peer-demo"


def test_status_reads_without_taking_the_trial():
    hermes = Hermes()
    client = hermes.client()
    fail(client)
    time.sleep(PERIOD + 0.05)
    state = breaker.status(ENDPOINT)
    assert state.open and state.next_trial_in == 0 and state.failures == FAILURES
    hermes.mode = "up"
    assert client.get_session("peer-demo").id == "peer-demo"  # the trial was still there


# -- shared through Redis ------------------------------------------------------------


def test_redis_shares_the_open_state_between_processes(with_redis, redis_state):
    first, second = breaker.Breaker(ENDPOINT), breaker.Breaker(ENDPOINT)
    for _ in range(FAILURES):
        first.failed()
    with pytest.raises(breaker.Open) as info:
        second.admit()
    assert info.value.since == pytest.approx(time.time(), abs=5)
    assert with_redis.exists(f"hui:breaker:local:{ENDPOINT.fingerprint}")
    # Another process: nothing of this one's memory, the same state from Redis.
    breaker.reset_all()
    hermes = Hermes()
    with pytest.raises(e.Unresponsive):
        hermes.client().get_session("peer-demo")
    assert hermes.calls == 0
    assert breaker.status(ENDPOINT).open


def test_redis_lets_one_process_take_the_trial(with_redis, redis_state):
    first, second = breaker.Breaker(ENDPOINT), breaker.Breaker(ENDPOINT)
    for _ in range(FAILURES):
        first.failed()
    time.sleep(PERIOD + 0.05)
    assert second.admit() is True  # this process tries
    with pytest.raises(breaker.Open):
        first.admit()  # the other waits for the next period
    second.succeeded()
    assert first.admit() is False  # closed for everyone
    assert breaker.status(ENDPOINT) == breaker.Status()


def test_a_strike_in_one_process_counts_in_the_other(with_redis, redis_state):
    first, second = breaker.Breaker(ENDPOINT), breaker.Breaker(ENDPOINT)
    first.failed()
    second.failed()
    assert breaker.Breaker(ENDPOINT).status().failures == 2


def test_with_redis_unreachable_the_breaker_works_in_process(settings, redis_state, caplog):
    settings.REDIS_URL = unreachable_url().replace("http://", "redis://") + "/0"
    hermes = Hermes()
    client = hermes.client()
    with caplog.at_level(logging.WARNING, logger="hermes_ui.redis"):
        fail(client)
        redis_link._down_until = 0.0  # Redis is tried again, and fails again
        with pytest.raises(e.Unresponsive):
            client.get_session("peer-demo")
        assert breaker.status(ENDPOINT).open
    assert hermes.calls == FAILURES
    outage = [r for r in caplog.records if "redis unreachable" in r.getMessage()]
    assert len(outage) == 1
