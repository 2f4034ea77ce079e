"""One deadline per operation: the page's budget, or the operation's own timeout.

Against real sockets that answer too slowly (``servers.py``) and against
``httpx.MockTransport`` handlers that fail on cue: the whole operation,
retries and waits included, ends by its deadline; reads are retried only
while time is left, mutations never; a page nobody waits for starts nothing.
"""

import threading
import time

import httpx
import pytest
import tenacity

from hermes_ui.hermes import breaker, deadline
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.samples import MUTATIONS, response
from tests.support.servers import slow_server

ENDPOINT = Endpoint("local", "http://hermes.test", TEST_KEY)
# What the contract lets a single read wait: far longer than any test may take.
CONTRACT_TIMEOUT = 30.0


def real_client(url: str, **kwargs) -> HermesClient:
    kwargs.setdefault("json_timeout", CONTRACT_TIMEOUT)
    return HermesClient(Endpoint("slow", url, TEST_KEY), **kwargs)


def timed_failure(call) -> tuple[BaseException, float]:
    started = time.monotonic()
    with pytest.raises(e.HermesError) as info:
        call()
    return info.value, time.monotonic() - started


class Script:
    """A transport that plays ``steps`` in order (an exception class or a response),
    then answers ``then``; it keeps when each request arrived."""

    def __init__(self, *steps, then="030_get"):
        self.steps = list(steps)
        self.then = then
        self.times: list[float] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.times.append(time.monotonic())
        step = self.steps.pop(0) if self.steps else self.then
        if isinstance(step, type) and issubclass(step, Exception):
            raise step("scripted", request=request)
        return response(step) if isinstance(step, str) else step

    @property
    def attempts(self) -> int:
        return len(self.times)

    def client(self, **kwargs) -> HermesClient:
        kwargs.setdefault("read_retries", 2)
        kwargs.setdefault("retry_backoff", 0.0)
        return HermesClient(ENDPOINT, transport=httpx.MockTransport(self), **kwargs)


def strikes(endpoint=ENDPOINT) -> int:
    return breaker.status(endpoint).failures


# -- 1. a page's budget bounds the whole answer, however slowly it comes ------


@pytest.mark.parametrize("behaviour", ["trickle_body", "trickle_headers", "silent"])
def test_a_page_budget_ends_a_read_of_a_slow_server_on_time(behaviour):
    with slow_server(behaviour) as server:
        client = real_client(server.url)
        try:
            with deadline.budget(1.0):
                error, took = timed_failure(lambda: client.get_session("slow"))
        finally:
            client.close()
    assert isinstance(error, e.Timeout) and error.code == "timeout"
    # By the budget: not after 30 s of per-read timeouts, nor as soon as it starts.
    assert 0.9 <= took < 2.5, f"{behaviour}: gave up after {took:.2f} s"
    assert server.accepted == 1  # no retry could start with the budget spent


def test_a_byte_late_in_the_budget_does_not_buy_a_whole_new_read_timeout():
    # The header at once, one body byte 1.5 s into a 2 s budget, then silence:
    # the wait for the next byte is what is left of the budget, not another 2 s.
    with slow_server("stall_body", every=1.5) as server:
        client = real_client(server.url)
        try:
            with deadline.budget(2.0):
                error, took = timed_failure(lambda: client.get_session("slow"))
        finally:
            client.close()
    assert isinstance(error, e.Timeout)
    assert 1.9 <= took < 2.9, f"gave up after {took:.2f} s"


# -- 2. without a page, the operation's own timeout is the total deadline ------


@pytest.mark.parametrize("behaviour", ["trickle_body", "trickle_headers", "silent"])
def test_without_a_page_the_operation_timeout_is_the_total_deadline(behaviour):
    with slow_server(behaviour) as server:
        client = real_client(server.url, json_timeout=1.0, read_retries=3)
        try:
            assert deadline.current() is None
            error, took = timed_failure(lambda: client.get_session("slow"))
        finally:
            client.close()
    assert isinstance(error, e.Timeout)
    assert 0.9 <= took < 2.5, f"{behaviour}: gave up after {took:.2f} s"


def test_a_page_budget_longer_than_the_operation_timeout_does_not_extend_it():
    with slow_server("trickle_body") as server:
        client = real_client(server.url, json_timeout=1.0, read_retries=0)
        try:
            with deadline.budget(20.0):
                _, took = timed_failure(lambda: client.get_session("slow"))
        finally:
            client.close()
    assert took < 2.5


def test_a_page_out_of_time_asks_nothing_and_that_is_no_strike(settings):
    settings.HERMES_BREAKER_FAILURES = 2
    script = Script()
    client = script.client()
    for _ in range(settings.HERMES_BREAKER_FAILURES + 2):
        with deadline.budget(0.0), pytest.raises(e.Timeout) as info:
            client.get_session("peer-demo")
        assert info.value.outcome is e.Outcome.REJECTED
    # Nothing was sent, so a mutation's outcome is not in doubt either.
    with deadline.budget(0.0), pytest.raises(e.Timeout) as info:
        client.create_session(idempotency_key="k")
    assert info.value.outcome is e.Outcome.REJECTED and not info.value.uncertain
    assert script.attempts == 0
    # Hermes was not asked, so nothing is held against it.
    assert strikes() == 0
    assert client.get_session("peer-demo").id == "peer-demo"


# -- 3. reads retry while time is left; mutations never --------------------------


def test_a_read_is_retried_until_it_succeeds_when_the_budget_allows():
    script = Script(httpx.ConnectError, httpx.ReadTimeout)
    with deadline.budget(30.0):
        session = script.client().get_session("peer-demo")
    assert session.id == "peer-demo"
    assert script.attempts == 3
    # Failures that ended in a success are not a strike against the endpoint.
    assert strikes() == 0


def test_no_retry_starts_without_time_for_the_backoff_and_one_more_attempt(monkeypatch):
    # The jittered backoff at its longest: a first wait of exactly retry_backoff.
    monkeypatch.setattr(tenacity.wait.random, "uniform", lambda low, high: high)
    script = Script(httpx.ConnectError, httpx.ConnectError)
    started = time.monotonic()
    with deadline.budget(1.2), pytest.raises(e.TransportFailure):
        # 1.0 s of backoff + 0.5 s for an attempt do not fit in 1.2 s.
        script.client(retry_backoff=1.0).get_session("peer-demo")
    assert script.attempts == 1
    assert time.monotonic() - started < 0.5  # nor did it sleep first


def test_the_same_budget_retries_when_the_backoff_fits():
    script = Script(httpx.ConnectError, httpx.ConnectError)
    with deadline.budget(1.2):
        assert script.client(retry_backoff=0.0).get_session("peer-demo").id == "peer-demo"
    assert script.attempts == 3


def test_a_budget_shorter_than_one_attempt_allows_no_retry():
    script = Script(httpx.ConnectError)
    with deadline.budget(0.3), pytest.raises(e.TransportFailure):
        script.client().get_session("peer-demo")
    assert script.attempts == 1


@pytest.mark.parametrize(
    "call",
    MUTATIONS,
)
@pytest.mark.parametrize("failure", [httpx.ConnectError, httpx.ReadTimeout])
def test_a_mutation_is_sent_once_even_with_time_to_spare(call, failure):
    script = Script(failure, then=httpx.Response(200, json={}))
    with deadline.budget(30.0), pytest.raises(e.HermesError) as info:
        call(script.client(read_retries=5))
    assert info.value.uncertain
    assert script.attempts == 1


# -- 4. Retry-After ---------------------------------------------------------------


def test_retry_after_is_waited_before_the_next_read():
    busy = httpx.Response(503, headers={"Retry-After": "1"}, json={})
    script = Script(busy)
    with deadline.budget(10.0):
        # A short backoff of its own: the wait between the attempts is the server's.
        assert script.client(retry_backoff=0.05).get_session("peer-demo").id == "peer-demo"
    assert script.attempts == 2
    assert script.times[1] - script.times[0] >= 0.95


def test_a_retry_after_longer_than_the_budget_ends_the_read_at_once():
    busy = httpx.Response(503, headers={"Retry-After": "2"}, json={})
    script = Script(busy)
    started = time.monotonic()
    with deadline.budget(1.5), pytest.raises(e.Unavailable):
        script.client(retry_backoff=0.05).get_session("peer-demo")
    assert script.attempts == 1
    assert time.monotonic() - started < 0.5


# -- 5. a page whose browser went away ------------------------------------------


def test_a_page_nobody_waits_for_makes_no_attempt_and_no_strike(settings):
    settings.HERMES_BREAKER_FAILURES = 2
    script = Script()
    client = script.client()
    for _ in range(settings.HERMES_BREAKER_FAILURES + 2):
        with deadline.budget(10.0) as page:
            page.gone.set()
            with pytest.raises(e.Timeout) as info:
                client.get_session("peer-demo")
        assert info.value.outcome is e.Outcome.REJECTED
    assert script.attempts == 0
    assert strikes() == 0
    # The endpoint is not held against the abandoned pages: the next one reaches it.
    assert client.get_session("peer-demo").id == "peer-demo"
    assert script.attempts == 1


def test_a_page_that_goes_away_during_an_attempt_gets_no_retry_and_no_strike():
    gone = threading.Event()
    calls = []

    def fail_and_leave(request):
        calls.append(request)
        gone.set()  # the browser closed while Hermes was being asked
        raise httpx.ConnectError("down", request=request)

    client = HermesClient(
        ENDPOINT, transport=httpx.MockTransport(fail_and_leave), read_retries=3, retry_backoff=0
    )
    with deadline.budget(10.0, gone), pytest.raises(e.HermesError):
        client.get_session("peer-demo")
    assert len(calls) == 1
    assert strikes() == 0
