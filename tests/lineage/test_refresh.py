"""The refresh button: a real background sync, a status line that polls, roles."""

import threading
import time

import pytest

from hermes_ui.index import refresher
from hermes_ui.index.models import IndexedSession, IndexSyncState

pytestmark = pytest.mark.peer


def wait_for_syncs():
    for thread in threading.enumerate():
        if thread.name.startswith("index-sync-"):
            thread.join(30)


@pytest.mark.django_db(transaction=True)
def test_refresh_runs_off_the_request_and_the_status_polls_until_done(peer_endpoint, login):
    client = login("support")
    answer = client.post("/e/local/index/refresh/", HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    html = answer.content.decode()
    assert 'id="index-freshness"' in html
    # The lease is taken before the response: it says "refreshing" and polls.
    assert "Refreshing the index" in html and 'hx-trigger="every 1s"' in html
    assert "?polling=1" in html
    wait_for_syncs()
    done = client.get("/e/local/index/status/?polling=1", HTTP_HX_REQUEST="true")
    assert "Indexed" in done.content.decode() and "every 1s" not in done.content.decode()
    assert done["HX-Trigger"] == "index-refreshed"  # the results reload themselves
    assert IndexedSession.objects.filter(endpoint="local").count() >= 199
    assert IndexSyncState.objects.get(endpoint="local").last_full_at is not None  # first = full


@pytest.mark.django_db(transaction=True)
def test_without_javascript_the_button_redirects_back(peer_endpoint, login):
    answer = login("support").post(
        "/e/local/index/refresh/", {"next": "/e/local/sessions/x/lineage/?expand=a"}
    )
    wait_for_syncs()
    assert (
        answer.status_code == 302 and answer["Location"] == "/e/local/sessions/x/lineage/?expand=a"
    )
    elsewhere = login("support").post("/e/local/index/refresh/", {"next": "https://evil.example/"})
    wait_for_syncs()
    assert elsewhere["Location"] == "/e/local/index/"


@pytest.mark.django_db
def test_only_admins_start_a_full_sweep_by_hand(peer_endpoint, login, monkeypatch):
    started = []
    monkeypatch.setattr(refresher, "sync_in_background", lambda ep, full: started.append(full))
    assert login("support").post("/e/local/index/refresh/", {"full": "1"}).status_code == 403
    assert login("reviewer").post("/e/local/index/refresh/", {"full": "1"}).status_code == 403
    assert login("admin").post("/e/local/index/refresh/", {"full": "1"}).status_code == 302
    assert login("reviewer").post("/e/local/index/refresh/").status_code == 302
    assert started == [True, None]  # None: sweep only if one is due


@pytest.mark.django_db
def test_refresh_needs_a_post_with_csrf(peer_endpoint, users):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(users["support"])
    assert client.get("/e/local/index/refresh/").status_code == 405
    assert client.post("/e/local/index/refresh/").status_code == 403


def test_the_background_refresher_only_starts_under_a_real_asgi_server(monkeypatch):
    from django.core.handlers.asgi import ASGIHandler
    from django.test.client import AsyncClientHandler, ClientHandler

    calls = []
    monkeypatch.setattr(refresher, "start_background", lambda: calls.append(1))
    monkeypatch.setattr(refresher, "_started", threading.Event())
    refresher.on_request_started(ClientHandler)
    refresher.on_request_started(AsyncClientHandler)
    assert calls == []
    refresher.on_request_started(ASGIHandler)
    assert calls == [1]


def test_zero_seconds_turns_the_refresher_off(settings, monkeypatch):
    monkeypatch.setattr(refresher, "_started", threading.Event())
    settings.HERMES_INDEX_REFRESH_SECONDS = 0
    assert refresher.start_background() is False
    assert not any(t.name == "index-refresher" for t in threading.enumerate())


@pytest.mark.django_db(transaction=True)
def test_the_background_loop_syncs_every_endpoint(peer_endpoint, settings, monkeypatch):
    monkeypatch.setattr(refresher, "_started", threading.Event())
    monkeypatch.setattr(refresher, "_stop", threading.Event())
    settings.HERMES_INDEX_REFRESH_SECONDS = 3600
    assert refresher.start_background() is True
    assert refresher.start_background() is False  # once per process
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        state = IndexSyncState.objects.filter(endpoint="local").first()
        if state and state.last_sync_at:
            break
        time.sleep(0.1)
    refresher._stop.set()
    assert state.last_sync_at is not None
    for thread in threading.enumerate():
        if thread.name == "index-refresher":
            thread.join(10)
