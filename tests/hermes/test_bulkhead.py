"""The bulkhead: a cap on one worker's calls in flight to one endpoint."""

import threading
import time

import httpx
import pytest

from hermes_ui.hermes import breaker, deadline
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.samples import response

SLOW = Endpoint("slow", "http://slow.test", TEST_KEY)
OTHER = Endpoint("other", "http://other.test", TEST_KEY)


class Held:
    """A transport whose first request waits for ``release``; the others answer at once."""

    def __init__(self):
        self.inside = threading.Event()
        self.release = threading.Event()
        self.calls = 0

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.calls += 1
        if self.calls == 1:
            self.inside.set()
            assert self.release.wait(10), "the test never released the call"
        return response("030_get")

    def get(self, endpoint: Endpoint, **kwargs):
        """``get_session`` as a page makes it (under a page budget)."""
        with deadline.budget(10):
            return self.client(endpoint, **kwargs).get_session("peer-demo")

    def client(self, endpoint: Endpoint, **kwargs) -> HermesClient:
        kwargs.setdefault("read_retries", 2)
        kwargs.setdefault("retry_backoff", 0.0)
        return HermesClient(endpoint, transport=httpx.MockTransport(self), **kwargs)


@pytest.fixture
def one_slot(settings):
    settings.HERMES_BULKHEAD = 1
    settings.HERMES_BULKHEAD_WAIT = 0.05


@pytest.fixture
def held(one_slot):
    """A call to ``SLOW`` in flight on another thread, holding its endpoint's only slot."""
    transport = Held()
    answers = []
    thread = threading.Thread(target=lambda: answers.append(transport.get(SLOW)))
    thread.start()
    assert transport.inside.wait(5)
    yield transport
    transport.release.set()
    thread.join(10)
    assert answers and answers[0].id == "peer-demo"  # the held call itself was never harmed


def test_a_call_over_the_cap_is_refused_quickly_with_503(held):
    started = time.monotonic()
    with pytest.raises(e.Busy) as info:
        held.get(SLOW)
    assert time.monotonic() - started < 0.5
    assert info.value.status == 503 and info.value.code == "endpoint_busy"
    assert held.calls == 1  # never sent
    # Being busy says nothing about the endpoint's health.
    assert breaker.status(SLOW) == breaker.Status()


def test_another_endpoint_is_not_affected(held):
    other = Held()
    other.calls = 1  # answers at once
    assert other.get(OTHER).id == "peer-demo"


def test_the_slot_is_free_again_after_the_call(held):
    held.release.set()
    give_up = time.monotonic() + 5
    while True:
        try:
            assert held.get(SLOW).id == "peer-demo"
            break
        except e.Busy:
            assert time.monotonic() < give_up, "the slot was never given back"


def test_a_busy_refusal_waits_once_and_is_not_retried(held, settings):
    settings.HERMES_BULKHEAD_WAIT = 0.3
    started = time.monotonic()
    with pytest.raises(e.Busy):
        held.get(SLOW, read_retries=3)
    # One wait for a slot; retries would each have waited again.
    assert 0.25 <= time.monotonic() - started < 0.55


def test_background_work_takes_no_page_slot(held):
    """The refresher and jobs run on threads of their own: no page budget, no bulkhead."""
    assert held.client(SLOW).get_session("peer-demo").id == "peer-demo"
    assert held.calls == 2
