"""The first index answers while it is being built: what is indexed so far, with progress."""

import threading

import pytest

from hermes_ui.index import sync
from hermes_ui.index.models import IndexedSession
from tests.support.peers import endpoint_for
from tests.support.servers import SlowLists
from tests.support.waiting import until

pytestmark = pytest.mark.peer


@pytest.mark.django_db(transaction=True)
def test_the_index_answers_with_what_is_indexed_so_far_while_a_first_sweep_runs(
    settings, hermes_peer, monkeypatch, login
):
    settings.HERMES_INDEX_CONTENT = False
    settings.HERMES_INDEX_PACE_MAX_STRETCH = 1  # the delay alone keeps the sweep running
    monkeypatch.setattr(sync, "PAGE", 10)
    with SlowLists(hermes_peer.base_url, list_delay=0.4) as slow:
        base = endpoint_for(settings, hermes_peer)
        endpoint = type(base)(base.id, slow.url, base.api_key)
        settings.HERMES_ENDPOINTS = {"local": endpoint}
        done = threading.Event()
        reports = []

        def sweep():
            try:
                reports.append(sync.sync(endpoint, full=True))
            finally:
                done.set()

        worker = threading.Thread(target=sweep, name="index-sync-local")
        worker.start()
        try:
            until(
                lambda: IndexedSession.objects.filter(endpoint="local").count() >= 20,
                60,
                "the first sweep indexed nothing",
            )
            client = login("support")
            answer = client.get("/e/local/sessions/?view=all")
            assert not done.is_set(), "the sweep ended before the page was read"
            html = answer.content.decode()
            assert answer.status_code == 200
            assert "Refreshing the index (full sweep)" in html and 'id="index-building"' in html
            shown = [
                sid
                for sid in IndexedSession.objects.filter(endpoint="local").values_list(
                    "session_id", flat=True
                )
                if f"/sessions/{sid}/" in html
            ]
            assert shown, "the index page listed none of the sessions indexed so far"
            # A title search answers too, from the same partial index.
            found = client.get("/e/local/sessions/", {"q": "a"})
            assert found.status_code == 200 and "Refreshing the index" in found.content.decode()
            slow.list_delay = 0  # seen: the rest of the sweep need not crawl
        finally:
            worker.join(120)
    assert reports and not reports[0].error_code
    assert IndexedSession.objects.filter(endpoint="local").count() > len(shown)
