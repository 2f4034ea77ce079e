"""An endpoint's identity is its id plus its base URL; records of another identity stay
apart (turns and audit events here; deletion cases in ``tests/deletion``,
the index and forks against two real peers in ``tests/index``)."""

import pytest

from hermes_ui.audit import trail
from hermes_ui.chat.models import Turn
from hermes_ui.platform.endpoints import Endpoint, public_url, url_fingerprint
from tests.conftest import TEST_KEY


def test_the_fingerprint_names_the_server_not_the_spelling():
    same = [
        "http://Hermes.test:8642",
        "http://hermes.test:8642/",
        "HTTP://user:pw@hermes.test:8642",
    ]
    assert len({url_fingerprint(url) for url in same}) == 1
    assert url_fingerprint("https://h.test") == url_fingerprint("https://h.test:443/")
    different = [
        "http://hermes.test:8642",
        "http://hermes.test:8643",
        "http://other.test:8642",
        "http://hermes.test:8642/b",
        "https://hermes.test:8642",
    ]
    assert len({url_fingerprint(url) for url in different}) == len(different)
    assert len(url_fingerprint(same[0])) == 16


def test_the_public_url_carries_no_credentials():
    assert public_url("http://user:secret@Hermes.test:8642/api/?key=abc") == (
        "http://hermes.test:8642/api"
    )
    ep = Endpoint("local", "http://user:secret@hermes.test", TEST_KEY)
    assert ep.scope() == {"endpoint": "local", "endpoint_fp": url_fingerprint("http://hermes.test")}
    assert "secret" not in ep.public_url


@pytest.mark.django_db
def test_audit_events_keep_the_url_they_were_made_against(mock_endpoint, users, settings):
    first = trail.record(
        users["admin"],
        capability="session_patch",
        endpoint="local",
        outcome="success",
        session_id="s1",
    )
    settings.HERMES_ENDPOINTS = {"local": Endpoint("local", "http://moved.test", TEST_KEY)}
    second = trail.record(
        users["admin"],
        capability="session_patch",
        endpoint="local",
        outcome="success",
        session_id="s1",
    )
    first.refresh_from_db()
    assert (first.base_url, first.endpoint_fp) == ("http://hermes.test", mock_endpoint.fingerprint)
    assert second.base_url == "http://moved.test"
    assert second.endpoint_fp == url_fingerprint("http://moved.test")


@pytest.mark.django_db
def test_a_turn_of_another_server_is_not_shown_under_the_id(login, mock_endpoint, users, settings):
    turn = Turn.objects.create(
        **mock_endpoint.scope(),
        requested_session_id="s1",
        target_session_id="s1",
        user=users["support"],
        form_key="k1",
        message="hello",
        state="completed",
    )
    support = login("support")
    assert support.get(f"/e/local/turns/{turn.pk}/").status_code == 200
    settings.HERMES_ENDPOINTS = {"local": Endpoint("local", "http://moved.test", TEST_KEY)}
    assert support.get(f"/e/local/turns/{turn.pk}/").status_code == 404
