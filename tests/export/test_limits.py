"""Exports running at once are limited per person and per process (issue 23, finding 7b).

A slot is held from the request until the download ends, fails or is closed
(the client went away); one export over a limit is a 429 page.
"""

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest
from asgiref.sync import async_to_sync
from django.core.signals import request_finished
from django.db import close_old_connections
from django.test import RequestFactory

from devtools.peer import demo_ids as ids
from hermes_ui.export.views import session_export
from hermes_ui.web import download_limits as limits
from hermes_ui.web.links import session_url

pytestmark = pytest.mark.django_db


def url(session_id=ids.TOOL_SESSION, fmt="json"):
    return session_url("local", session_id, "session_export", format=fmt)


def finish(answer) -> bytes:
    assert answer.status_code == 200 and answer.streaming
    return b"".join(answer.streaming_content)


def served(user, session_id=ids.TOOL_SESSION, fmt="json"):
    """The view's response as a server gets it (no test-client wrapper around it)."""
    request = RequestFactory().get(url(session_id, fmt))
    request.user = user
    return async_to_sync(session_export)(request, endpoint="local", session_id=session_id)


def hang_up(answer) -> None:
    """What the server does when the client goes away: close the response.

    As Django's test client does when it closes a response, the test's
    database connection stays open across the ``request_finished`` signal."""
    request_finished.disconnect(close_old_connections)
    try:
        answer.close()
    finally:
        request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def no_exports_running():
    gc.collect()  # responses other tests dropped unread give their slots back when collected
    assert limits.running() == 0  # nothing left over by another test
    yield
    assert limits.running() == 0  # and nothing left over by this one


@pytest.fixture
def caps(settings):
    settings.HERMES_UI_EXPORTS_PER_USER = 2
    settings.HERMES_UI_EXPORTS_PER_PROCESS = 8
    return settings


@pytest.mark.peer
@pytest.mark.parametrize("htmx", [False, True])
def test_a_third_export_of_one_person_is_refused_while_two_stream(caps, login, review_client, htmx):
    browser = login("admin")
    first, second = browser.get(url(fmt="json")), browser.get(url(fmt="md"))
    assert first.streaming and second.streaming  # both open: nothing read yet
    extra = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    third = browser.get(url(fmt="html"), **extra)
    assert third.status_code == 429 and not third.streaming
    assert limits.running() == 2
    page = third.content.decode()
    assert "Too many at once" in page and "You already have 2 exports downloading" in page
    assert third["Content-Type"].startswith("text/html")
    if htmx:  # the app's error policy: an error page takes the main area
        assert third["HX-Retarget"] == "#main" and third["HX-Reswap"] == "outerHTML"
    # Someone else is not held back by that person's downloads.
    assert b'"sha256"' in finish(login("reviewer").get(url()))
    # When one download ends, the person may start another.
    assert b'"sha256"' in finish(first)
    fourth = browser.get(url(fmt="md"))
    assert fourth.status_code == 200
    finish(second)
    finish(fourth)


@pytest.mark.peer
def test_the_process_limit_counts_everybody(caps, login, review_client):
    caps.HERMES_UI_EXPORTS_PER_PROCESS = 2
    open_ones = [login("admin").get(url()), login("reviewer").get(url())]
    refused = login("support").get(url())
    assert refused.status_code == 429
    assert "already streaming 2 exports" in refused.content.decode()
    for answer in open_ones:
        finish(answer)
    finish(login("support").get(url()))


@pytest.mark.peer
def test_slots_are_released_on_error_pages_failures_and_early_close(
    caps, users, login, review_client, monkeypatch
):
    browser = login("admin")
    # An error page before anything streams (no such session).
    assert browser.get(url("no-such-session-anywhere")).status_code == 404
    assert limits.running() == 0
    # The client goes away after the first chunk: the server closes the response.
    leaving = served(users["admin"], ids.LONG_SESSION, fmt="md")
    next(iter(leaving.streaming_content))
    assert limits.running() == 1
    hang_up(leaving)
    assert limits.running() == 0
    # Closed before its first chunk was asked for.
    early = served(users["admin"])
    assert limits.running() == 1
    hang_up(early)
    assert limits.running() == 0

    # Producing the download fails half way.
    from hermes_ui.export import members

    real = members.sessions

    def failing(*args, **kwargs):
        yield from real(*args, **kwargs)
        raise RuntimeError("export writer failed")

    monkeypatch.setattr(members, "sessions", failing)
    broken = browser.get(url(fmt="md"))
    with pytest.raises(RuntimeError, match="writer failed"):
        b"".join(broken.streaming_content)
    assert limits.running() == 0
    monkeypatch.setattr(members, "sessions", real)
    # The person's two slots are free again.
    again = [browser.get(url()), browser.get(url(fmt="md"))]
    assert [a.status_code for a in again] == [200, 200]
    for answer in again:
        finish(answer)


class _User:
    def __init__(self, pk):
        self.pk = pk


def test_a_slot_is_released_once_whatever_ends_it(caps):
    person = _User(1)
    with limits.acquire(person):  # not handed to a stream: released on the way out
        assert limits.running(person) == 1
    assert limits.running(person) == 0
    with pytest.raises(ValueError), limits.acquire(person):
        raise ValueError("planning failed")
    assert limits.running() == 0

    slot = limits.acquire(person)
    with slot:
        body = slot.stream(iter([b"a", b"b"]))
    assert limits.running(person) == 1  # handed over: held by the stream
    assert list(body) == [b"a", b"b"]
    assert limits.running(person) == 0
    slot.release()  # idempotent: counts never go below what is running
    assert limits.running() == 0

    # A stream that is dropped without ever being read or closed.
    slot = limits.acquire(person)
    with slot:
        body = slot.stream(iter([b"never read"]))
    assert limits.running(person) == 1
    del body
    gc.collect()
    assert limits.running(person) == 0


def test_the_limits_are_per_person_and_per_process(caps):
    caps.HERMES_UI_EXPORTS_PER_PROCESS = 3
    a, b = _User(1), _User(2)
    held = [limits.acquire(a), limits.acquire(a)]
    with pytest.raises(limits.Busy) as busy:
        limits.acquire(a)
    assert busy.value.scope == limits.PER_USER and busy.value.limit == 2
    held.append(limits.acquire(b))
    with pytest.raises(limits.Busy) as busy:
        limits.acquire(b)
    assert busy.value.scope == limits.PER_PROCESS
    held.pop().release()
    held.append(limits.acquire(b))
    for slot in held:
        slot.release()


@pytest.mark.parametrize(
    ("name", "value"),
    [("HERMES_UI_EXPORTS_PER_USER", "two"), ("HERMES_UI_EXPORTS_PER_PROCESS", "0")],
)
def test_a_bad_limit_stops_start_up_naming_the_variable(name, value, tmp_path):
    env = {**os.environ, name: value, "HERMES_UI_DATA_DIR": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", "import hermes_ui.settings"],
        env=env,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        timeout=60,
    )
    assert done.returncode != 0 and f"ImproperlyConfigured: {name} must be" in done.stderr
