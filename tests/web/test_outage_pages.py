"""What a page answers when Hermes, the database or Redis is in trouble."""

import time

import pytest
from django.db import OperationalError, connection
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import Client, RequestFactory

from hermes_ui.hermes import breaker, bulkhead
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.web import database
from tests.conftest import TEST_KEY
from tests.support.peers import unreachable_url
from tests.support.servers import slow_server
from tests.web import outage_urls

pytestmark = pytest.mark.django_db

LIST = "/e/local/sessions/"
DETAIL = "/e/local/sessions/peer-demo/"


def open_breaker(endpoint):
    for _ in range(breaker.settings.HERMES_BREAKER_FAILURES):
        breaker.breaker_for(endpoint).failed()


# -- 8. Hermes refused locally or too slow: a 503/504 banner, never a 500 ----------


@pytest.mark.parametrize("url", [LIST, DETAIL])
def test_an_open_breaker_answers_a_503_banner_with_retry_after(recorder, mock_endpoint, login, url):
    open_breaker(mock_endpoint)
    answer = login("support").get(url)
    assert answer.status_code == 503
    assert answer["Retry-After"] == "5"
    html = answer.content.decode()
    assert 'data-code="endpoint_unresponsive"' in html
    assert "is not answering since" in html
    assert recorder.requests == []


def test_an_open_breaker_in_an_htmx_list_update_answers_503_with_retry_after(
    recorder, mock_endpoint, login
):
    open_breaker(mock_endpoint)
    answer = login("support").get(LIST, headers={"HX-Request": "true"})
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert "is not answering since" in answer.content.decode()


@pytest.mark.parametrize("url", [LIST, DETAIL])
def test_a_full_bulkhead_answers_a_503_busy_banner(recorder, mock_endpoint, login, settings, url):
    settings.HERMES_BULKHEAD, settings.HERMES_BULKHEAD_WAIT = 1, 0.05
    client = login("support")
    with bulkhead.slot(mock_endpoint):  # another page's call holds the only slot
        answer = client.get(url)
    assert answer.status_code == 503 and answer["Retry-After"] == "5"
    assert 'data-code="endpoint_busy"' in answer.content.decode()
    assert recorder.requests == []


def test_a_page_ends_by_its_budget_against_a_hermes_that_never_answers(settings, login):
    settings.HERMES_PAGE_DEADLINE = 1.0
    client = login("support")
    with slow_server("silent") as server:
        settings.HERMES_ENDPOINTS = {"local": Endpoint("local", server.url, TEST_KEY)}
        started = time.monotonic()
        answer = client.get(LIST)
        took = time.monotonic() - started
    assert answer.status_code == 504
    assert 'data-code="timeout"' in answer.content.decode()
    assert took < 2.5


# -- 10. the dashboard's own database --------------------------------------------------


@pytest.fixture
def outage_pages(settings):
    settings.ROOT_URLCONF = "tests.web.outage_urls"
    outage_urls.calls.clear()
    yield Client(raise_request_exception=False)
    outage_urls.calls.clear()


def test_an_unreachable_database_answers_the_503_page_not_the_500_one(outage_pages):
    answer = outage_pages.get("/test/down/")
    assert answer.status_code == 503
    assert answer["Retry-After"]
    html = answer.content.decode()
    assert "database is unreachable" in html and "Something went wrong" not in html


def test_a_bug_in_a_query_is_still_a_500(outage_pages):
    answer = outage_pages.get("/test/bug/")
    assert answer.status_code == 500
    assert "database is unreachable" not in answer.content.decode()
    assert outage_pages.get("/test/bug/") and outage_urls.calls == ["GET", "GET"]  # no retry


def test_a_read_that_met_a_dead_connection_is_served_once_more(outage_pages):
    answer = outage_pages.get("/test/flaky/")
    assert answer.status_code == 200 and answer.content == b"served"
    assert outage_urls.calls == ["GET", "GET"]


def test_a_read_is_retried_only_once(outage_pages):
    assert outage_pages.get("/test/down/").status_code == 503
    assert outage_urls.calls == ["GET", "GET"]


@pytest.mark.parametrize("method", ["post", "put", "delete"])
def test_a_write_is_never_served_twice(outage_pages, method):
    answer = getattr(outage_pages, method)("/test/flaky/")
    assert answer.status_code == 503
    assert outage_urls.calls == [method.upper()]


def test_the_outage_page_needs_no_database(django_assert_num_queries):
    request = RequestFactory().get("/e/local/sessions/")
    with django_assert_num_queries(0):
        answer = database.outage_response(request)
    assert answer.status_code == 503
    assert b"database is unreachable" in answer.content


def test_a_signed_in_page_while_every_query_fails_gets_the_503_page(
    recorder, login, transactional_db
):
    # (transactional_db: the retry drops the dead connection, which inside the
    # test-wide transaction of ``db`` would close it for the rest of the test.)
    client = login("support")
    client.raise_request_exception = False
    tried = []

    def unreachable(execute, sql, params, many, context):
        tried.append(sql)
        raise OperationalError("could not connect to server")

    with connection.execute_wrapper(unreachable):
        answer = client.get(LIST)
    assert answer.status_code == 503
    assert b"database is unreachable" in answer.content
    # The session lookup failed twice (the read and its one retry); the page
    # itself needed nothing from the database; Hermes was never asked.
    assert len(tried) == 2
    assert recorder.requests == []


# -- /healthz and /readyz ------------------------------------------------------------------


@pytest.fixture
def anonymous():
    return Client()


def test_both_probes_answer_200_without_a_login(anonymous):
    assert anonymous.get("/healthz").status_code == 200
    ready = anonymous.get("/readyz")
    assert ready.status_code == 200 and ready.content.startswith(b"ready\n")


def test_ready_with_a_redis_that_answers(anonymous, with_redis):
    assert anonymous.get("/readyz").status_code == 200


def test_not_ready_while_the_database_fails(anonymous, monkeypatch):
    def cursor(self, *args, **kwargs):
        raise OperationalError("could not connect to server")

    monkeypatch.setattr(BaseDatabaseWrapper, "cursor", cursor)
    ready = anonymous.get("/readyz")
    assert ready.status_code == 503
    assert b"database" in ready.content and b"redis" not in ready.content
    assert ready["Cache-Control"] == "no-store"
    assert anonymous.get("/healthz").status_code == 200


def test_not_ready_while_redis_is_unreachable(anonymous, settings, monkeypatch):
    from hermes_ui.platform import redis_link

    monkeypatch.setattr(redis_link, "_down_until", 0.0)
    monkeypatch.setattr(redis_link.OUTAGE, "_since", None)
    settings.REDIS_URL = unreachable_url().replace("http://", "redis://") + "/0"
    ready = anonymous.get("/readyz")
    assert ready.status_code == 503
    assert b"redis" in ready.content and b"database" not in ready.content
    assert anonymous.get("/healthz").status_code == 200
