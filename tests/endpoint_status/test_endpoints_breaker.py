"""The endpoints page shows each endpoint's breaker, read without asking Hermes."""

import re
import time

import httpx
import pytest
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from hermes_ui.hermes import breaker
from hermes_ui.hermes.client import use_transport
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.samples import response

pytestmark = pytest.mark.django_db

UP = Endpoint("up", "http://up.test", TEST_KEY)
DOWN = Endpoint("down", "http://down.test", TEST_KEY)


class Hermes:
    """``up`` answers its probes; ``down`` times out."""

    def __init__(self):
        self.asked: list[str] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.asked.append(request.url.host)
        if request.url.host == "down.test":
            raise httpx.ConnectTimeout("down", request=request)
        if request.url.path == "/health":
            return response("004_health")
        return response("144_capabilities")


@pytest.fixture
def up_down_hermes(settings):
    settings.HERMES_ENDPOINTS = {"up": UP, "down": DOWN}
    settings.HERMES_ENDPOINT_ID = "up"
    settings.HERMES_BREAKER_FAILURES = 3
    settings.HERMES_BREAKER_RETRY_SECONDS = 30.0
    fake = Hermes()
    with use_transport(httpx.MockTransport(fake)):
        yield fake


def breaker_cell(html: str, endpoint_id: str) -> str:
    row = re.search(rf'<tr id="endpoint-{endpoint_id}".*?</tr>', html, re.S).group(0)
    return re.search(r'<td class="breaker".*?</td>', row, re.S).group(0)


def page(login) -> str:
    answer = login("support").get(reverse("endpoint_list"))
    assert answer.status_code == 200
    return answer.content.decode()


def test_every_breaker_starts_closed(up_down_hermes, login):
    html = page(login)
    for endpoint_id in ("up", "down"):
        cell = breaker_cell(html, endpoint_id)
        assert 'data-breaker="closed"' in cell and ">closed<" in cell


def test_failures_short_of_the_threshold_are_counted_on_a_closed_breaker(up_down_hermes, login):
    html = page(login)  # the page's own probe of ``down`` timed out: one failure
    assert "1 failed call in a row" in breaker_cell(html, "down")
    assert "0 failed calls in a row" in breaker_cell(html, "up")


def test_an_open_breaker_shows_since_when_and_the_next_trial(up_down_hermes, login):
    for _ in range(3):
        breaker.breaker_for(DOWN).failed()
    opened = timezone.localtime().strftime("%H:%M")
    up_down_hermes.asked.clear()
    html = page(login)
    cell = breaker_cell(html, "down")
    assert 'data-breaker="open"' in cell
    match = re.search(
        r"not answering</span> since <time[^>]*>(\d\d:\d\d)</time>; "
        r"next trial in (\d+) s",
        cell,
    )
    assert match, cell
    assert match.group(1) in {opened, timezone.localtime().strftime("%H:%M")}
    assert 25 <= int(match.group(2)) <= 30
    assert "3 failed calls in a row" in cell
    # The probe of ``down`` was refused by its breaker, and showing it tried nothing.
    assert "down.test" not in up_down_hermes.asked
    assert 'data-breaker="closed"' in breaker_cell(html, "up")


def test_an_open_breaker_past_its_period_says_the_next_call_is_the_trial():
    state = breaker.Status(failures=4, opened_at=time.time(), next_trial_in=0.0)
    cell = render_to_string("endpoint_status/_breaker.html", {"b": state})
    assert "next trial with the next call" in cell and "4 failed calls in a row" in cell
