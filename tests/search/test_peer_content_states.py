"""The content index without a finished build, against the real Hermes peer: content
off stores nothing, and a build's progress shows while anyone searches.
(The built index's searches: ``test_peer_content_search.py``.)"""

import pytest
from django.db import connection
from django.utils import timezone

from hermes_ui.index import sync
from hermes_ui.index.models import ContentMessage, ContentSession, IndexSyncState
from tests.search.test_peer_content_search import search

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def test_content_off_stores_nothing_and_the_page_says_so(peer_endpoint, login, settings):
    settings.HERMES_INDEX_CONTENT = False
    report = sync.sync(peer_endpoint, full=True)
    assert report.error_code == "" and report.content_reads == 0
    assert not ContentMessage.objects.exists() and not ContentSession.objects.exists()
    if connection.vendor == "sqlite":
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM index_content_fts")
            assert cursor.fetchone() == (0,)
    html = search(login("support"), "refund")
    assert 'id="content-off"' in html and "HERMES_INDEX_CONTENT=false" in html


def test_progress_of_a_build_shows_on_the_index_page_while_anyone_searches(peer_endpoint, login):
    state = sync.state_for(peer_endpoint)
    IndexSyncState.objects.filter(pk=state.pk).update(
        running_since=timezone.now(),
        progress={"phase": "transcripts", "done": 1200, "total": 10000, "eta": 150},
    )
    html = search(login("reviewer"), "refund")
    assert "Reading transcripts for search: 1,200 of 10,000 sessions, about 2 min left" in html
