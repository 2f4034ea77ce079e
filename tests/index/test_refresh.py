"""The refresh button: a real background sync, a status line that polls, roles."""

import io

import pytest
from django.core.management import call_command

from hermes_ui.background import schedule
from hermes_ui.index import refresher
from hermes_ui.index.models import IndexedSession, IndexSyncState
from tests.support.tasks import drain

pytestmark = pytest.mark.peer


def wait_for_syncs():
    drain()  # the sync the button queued runs on a task worker


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
    assert elsewhere["Location"] == "/e/local/sessions/"


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


@pytest.mark.django_db
def test_zero_seconds_turns_syncing_off_but_retention_still_runs(
    settings, empty_hermes, mock_endpoint
):
    settings.HERMES_INDEX_REFRESH_SECONDS = 0
    started = schedule.start()
    assert "index" not in started and "live" not in started and "turn-purge" in started
    assert schedule.run.call("index") is None  # off: the round ends without a sync
    assert schedule.run.call("turn-purge") == {"turns": 0, "events": 0}
    assert empty_hermes.list_calls == 0


@pytest.mark.django_db(transaction=True)
def test_the_refresher_command_syncs_every_endpoint(peer_endpoint):
    out = io.StringIO()
    call_command("run_periodic", "index", stdout=out)
    assert "index: 1" in out.getvalue()
    state = IndexSyncState.objects.get(endpoint="local")
    assert state.last_sync_at is not None and state.sweep == 1  # the first sync is a sweep
    assert state.running_since is None  # the lease is released
    assert IndexedSession.objects.filter(endpoint="local").count() >= 199


@pytest.mark.django_db(transaction=True)
def test_a_held_lease_makes_the_refresher_skip_that_endpoint(peer_endpoint):
    from hermes_ui.index import sync

    assert sync.acquire(peer_endpoint, True)  # another process is syncing
    call_command("run_periodic", "index", stdout=io.StringIO())
    state = IndexSyncState.objects.get(endpoint="local")
    assert state.sweep == 0 and state.last_sync_at is None
    assert not IndexedSession.objects.filter(endpoint="local").exists()
    assert state.running_since is not None  # still the other holder's
