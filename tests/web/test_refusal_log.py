"""A refused request (403, 404) logs one line without a stack; a 500 keeps its stack;
one client's flood of refusals is capped in the log."""

import logging

import pytest
from django.test import Client

from hermes_ui.web import refusal_log
from hermes_ui.web.refusal_log import RefusalFilter


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


@pytest.fixture
def refusal_clock(monkeypatch):
    """The filters the logging configuration installed, with a clean slate and our clock.

    (Each configuration of logging in this process, Django's test set-up included, adds
    one more: dictConfig never removes a logger's filters. Each alone does the job.)
    """
    request_logger = logging.getLogger("django.request")
    installed = [f for f in request_logger.filters if isinstance(f, RefusalFilter)]
    assert installed  # settings.LOGGING puts it there
    # The same filters on the CSRF logger: one count per client for both.
    assert logging.getLogger("django.security.csrf").filters == installed
    tick = Clock()
    for refusals in installed:
        monkeypatch.setattr(refusals, "clock", tick)
        monkeypatch.setattr(refusals, "_windows", {})
    return tick


def request_records(caplog):
    return [r for r in caplog.records if r.name.startswith(("django.request", "django.security"))]


def assert_one_line(record):
    assert record.exc_info is None and not record.exc_text and not record.stack_info
    assert "\n" not in record.getMessage()


def test_twenty_refusals_from_twenty_clients_are_twenty_lines_without_a_stack(
    login, users, caplog, refusal_clock
):
    support = login("support")
    with caplog.at_level(logging.WARNING):
        for n in range(20):
            assert support.get("/audit/", REMOTE_ADDR=f"10.0.0.{n}").status_code == 403
    records = request_records(caplog)
    assert len(records) == 20
    for record in records:
        assert_one_line(record)
        assert record.getMessage() == (
            f"Refused 403 user={users['support'].pk} path=/audit/ reason=role"
        )
    assert "Traceback" not in caplog.text and "PermissionDenied" not in caplog.text


def test_one_clients_flood_is_capped_and_counted(login, caplog, refusal_clock):
    support = login("support")
    with caplog.at_level(logging.WARNING):
        for _ in range(20):
            assert support.get("/audit/").status_code == 403
    lines = [r.getMessage() for r in request_records(caplog)]
    assert len(lines) == refusal_log.PER_WINDOW + 1
    assert all(line.startswith("Refused 403 ") for line in lines[:-1])
    assert (
        lines[-1] == "Refusals from client 127.0.0.1: more than 10 in 60 s, not logged until then"
    )
    caplog.clear()
    refusal_clock.now += refusal_log.WINDOW
    with caplog.at_level(logging.WARNING):
        assert support.get("/audit/").status_code == 403
    (line,) = [r.getMessage() for r in request_records(caplog)]
    assert line.endswith("reason=role (+10 earlier refusals from this client not logged)")


def test_not_found_is_one_line_with_the_url_pattern_not_the_path(
    login, users, caplog, refusal_clock
):
    admin = login("admin")
    with caplog.at_level(logging.WARNING):
        assert admin.get("/no/such/page/secret-text/").status_code == 404
        assert admin.get("/e/local/changes/999999/").status_code == 404
    first, second = request_records(caplog)
    assert first.getMessage() == (
        f"Refused 404 user={users['admin'].pk} path=(no route) reason=no_route"
    )
    assert second.getMessage() == (
        f"Refused 404 user={users['admin'].pk} path=/e/<str:endpoint>/changes/<int:event_id>/ "
        "reason=not_found"
    )
    assert "secret-text" not in caplog.text and "999999" not in caplog.text
    for record in (first, second):
        assert_one_line(record)


def test_a_csrf_refusal_is_one_of_them(users, caplog, refusal_clock):
    client = Client(enforce_csrf_checks=True)
    client.force_login(users["support"])
    with caplog.at_level(logging.WARNING):
        assert client.post("/accounts/logout/").status_code == 403
    (record,) = request_records(caplog)
    assert (
        record.getMessage()
        == f"Refused 403 user={users['support'].pk} path=/accounts/logout/ reason=csrf"
    )


@pytest.mark.urls("tests.web.outage_urls")
def test_a_500_still_logs_its_stack(db, caplog, refusal_clock):
    client = Client(raise_request_exception=False)
    with caplog.at_level(logging.WARNING):
        assert client.get("/test/bug/").status_code == 500
    (record,) = request_records(caplog)
    assert record.levelno == logging.ERROR and (record.exc_info or record.exc_text)
    assert "Traceback (most recent call last)" in caplog.text
    assert "IntegrityError" in caplog.text


def test_a_second_logging_configuration_changes_nothing(login, users, refusal_clock, settings):
    """dictConfig adds filters without removing any: a record is rewritten once, by the
    first filter, so its reason survives a second one."""
    import logging.config

    class Keep(logging.Handler):
        def __init__(self):
            super().__init__()
            self.records = []

        def emit(self, record):
            self.records.append(record)

    logging.config.dictConfig(settings.LOGGING)
    request_logger = logging.getLogger("django.request")
    for refusals in request_logger.filters:
        refusals.clock, refusals._windows = refusal_clock, {}
    assert len(request_logger.filters) >= 2
    kept = Keep()
    request_logger.addHandler(kept)
    try:
        assert login("support").get("/audit/").status_code == 403
    finally:
        request_logger.removeHandler(kept)
    (record,) = kept.records
    assert_one_line(record)
    assert record.getMessage() == f"Refused 403 user={users['support'].pk} path=/audit/ reason=role"
