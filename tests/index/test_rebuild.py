"""An index that belongs to another database is rebuilt, not confirmed one GET at a time."""

import logging

import pytest

from hermes_ui.index import freshness, sync
from hermes_ui.index.models import IndexedSession, IndexSyncState
from hermes_ui.index.sync import MAX_CONFIRM, PAGE
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries
from tests.conftest import TEST_KEY
from tests.support.fakes import LIST

pytestmark = pytest.mark.django_db


def seed(fake, prefix, count):
    for i in range(count):
        fake.add(f"{prefix}{i:04d}", at=1_000_000.0 + i)


def present_ids():
    return set(
        IndexedSession.objects.filter(vanished_at__isnull=True).values_list("session_id", flat=True)
    )


def test_a_sweep_missing_most_rows_rebuilds_in_one_pass(empty_hermes, mock_endpoint, caplog):
    # More rows of the "other database" than one sweep could ever confirm.
    seed(empty_hermes, "other-", MAX_CONFIRM + PAGE)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.clear()
    seed(empty_hermes, "mine-", 40)
    empty_hermes.reset_counts()

    with caplog.at_level(logging.WARNING, logger="hermes_ui.index"):
        report = sync.sync(mock_endpoint, full=True)

    assert report.rebuilt == MAX_CONFIRM + PAGE and report.unconfirmed == 0
    # No GET per vanished row; the only other reads are the 40 new sessions'
    # transcripts, for the content index.
    reads = [path for method, path in empty_hermes.calls if method == "GET" and path != LIST]
    assert [path for path in reads if not path.endswith("/messages")] == []
    assert len(reads) == report.content_reads == 40
    assert present_ids() == {f"mine-{i:04d}" for i in range(40)}
    assert IndexedSession.objects.count() == 40  # no tombstones of the other database
    assert queries.search(mock_endpoint, snapshot=0, q="other-").total == 0
    assert freshness.of(mock_endpoint).total == 40
    assert "rebuilt" in report.summary()
    assert any("belonged to another database" in r.getMessage() for r in caplog.records)


def test_a_sweep_missing_exactly_half_still_confirms_each_row(empty_hermes, mock_endpoint):
    seed(empty_hermes, "s", 20)
    sync.sync(mock_endpoint, full=True)
    for i in range(10):
        empty_hermes.delete(f"s{i:04d}")
    empty_hermes.reset_counts()

    report = sync.sync(mock_endpoint, full=True)

    assert report.rebuilt == 0 and report.counts.vanished == 10
    assert empty_hermes.get_calls == 10  # each one confirmed by a 404
    gone = IndexedSession.objects.filter(vanished_at__isnull=False)
    assert set(gone.values_list("session_id", flat=True)) == {f"s{i:04d}" for i in range(10)}


def test_a_rebuild_keeps_rows_that_were_seen_and_other_endpoints(empty_hermes, mock_endpoint):
    seed(empty_hermes, "s", 10)
    sync.sync(mock_endpoint, full=True)
    other = Endpoint("eu", "http://eu.test", TEST_KEY)
    sync.sync(other, full=True)  # the same fake answers for "eu": ten rows there too
    for i in range(2, 10):
        empty_hermes.delete(f"s{i:04d}")

    report = sync.sync(mock_endpoint, full=True)

    assert report.rebuilt == 8
    assert set(
        IndexedSession.objects.filter(endpoint="local").values_list("session_id", flat=True)
    ) == {"s0000", "s0001"}
    assert IndexedSession.objects.filter(endpoint="eu").count() == 10


def test_an_incremental_refresh_never_rebuilds(empty_hermes, mock_endpoint):
    seed(empty_hermes, "s", 10)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.clear()
    report = sync.sync(mock_endpoint, full=False)
    assert report.rebuilt == 0 and len(present_ids()) == 10


def test_a_new_url_behind_the_id_starts_a_fresh_index(empty_hermes, mock_endpoint, settings):
    seed(empty_hermes, "s", 5)
    sync.sync(mock_endpoint, full=True)
    moved = Endpoint("local", "http://elsewhere.test:8642/", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"local": moved}

    # Reading only: the old rows are not this identity's, nothing is dropped yet.
    seen = freshness.of(moved)
    assert (seen.total, seen.replaced_url, seen.replaced_at) == (0, "http://hermes.test", None)
    assert queries.search(moved, snapshot=0).total == 0
    assert IndexedSession.objects.count() == 5

    sync.sync(moved, full=True)

    state = IndexSyncState.objects.get()
    assert (state.endpoint_fp, state.base_url) == (moved.fingerprint, "http://elsewhere.test:8642")
    assert state.replaced_url == "http://hermes.test" and state.replaced_at is not None
    assert set(IndexedSession.objects.values_list("endpoint_fp", flat=True)) == {moved.fingerprint}
