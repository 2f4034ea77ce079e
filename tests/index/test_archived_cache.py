"""Whether archived:no hides anything is asked on every index page; at 100,000 rows the
answer walked every root, so it is kept per state of the index (a sync moves it on)."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from hermes_ui.index import archived
from hermes_ui.index.models import IndexedSession, IndexSyncState

pytestmark = pytest.mark.django_db


def _row(endpoint, session_id: str, *, listed: bool) -> None:
    now = timezone.now()
    IndexedSession.objects.create(
        **endpoint.scope(),
        session_id=session_id,
        listed=listed,
        first_seen_at=now,
        last_seen_at=now,
    )


def _asks_the_index(endpoint) -> tuple[bool, bool]:
    with CaptureQueriesContext(connection) as captured:
        answer = archived.hides_any(endpoint)
    return answer, any("index_indexedsession" in q["sql"] for q in captured.captured_queries)


def test_the_answer_is_kept_until_a_sync_moves_the_index_on(mock_endpoint):
    state = IndexSyncState.objects.create(**mock_endpoint.scope(), generation=1)
    _row(mock_endpoint, "listed-one", listed=True)
    assert _asks_the_index(mock_endpoint) == (False, True)
    assert _asks_the_index(mock_endpoint) == (False, False)  # kept: no walk of the rows

    # A sync's read by id finds a root that left the lists: a new generation.
    _row(mock_endpoint, "archived-one", listed=False)
    IndexSyncState.objects.filter(pk=state.pk).update(generation=2)
    assert _asks_the_index(mock_endpoint) == (True, True)


def test_without_a_sync_state_the_rows_are_asked_every_time(mock_endpoint):
    _row(mock_endpoint, "archived-one", listed=False)
    assert _asks_the_index(mock_endpoint) == (True, True)
    assert _asks_the_index(mock_endpoint) == (True, True)
