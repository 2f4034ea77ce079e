"""The index sync against a fake Hermes: add, change, vanish, visibility, cost."""

from datetime import timedelta

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone

from hermes_ui.audit import trail
from hermes_ui.index import sync
from hermes_ui.index.forks import remember_fork
from hermes_ui.index.models import IndexedSession, IndexSyncState
from hermes_ui.index.sync import PAGE
from hermes_ui.search import queries

pytestmark = pytest.mark.django_db


def indexed(session_id):
    return IndexedSession.objects.get(endpoint="local", session_id=session_id)


def seed_many(fake, count, start=1_000_000.0):
    for i in range(count):
        fake.add(f"s{i:04d}", at=start + i)


def seed_lineage(fake):
    fake.add("root", at=100.0, title="Root")
    fake.end("root", "compression", 150.0)
    fake.add("cont", at=151.0, parent="root", title="Root #2")
    fake.add("dele", at=120.0, parent="cont", source="subagent", marker="delegate")
    fake.add("par", at=200.0, title="Parent")
    fake.end("par", "branched", 250.0)
    fake.add("br", at=260.0, parent="par", marker="branch", title="Parent #2")


def test_a_full_sync_indexes_every_row_with_its_kind_and_visibility(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    report = sync.sync(mock_endpoint, full=True)
    assert report.error_code == "" and report.counts.added == 5
    kinds = dict(IndexedSession.objects.values_list("session_id", "kind"))
    assert kinds == {
        "root": "root",
        "cont": "continuation",
        "dele": "delegate",
        "par": "root",
        "br": "branch",
    }
    assert indexed("root").visible_in_default_list
    assert indexed("root").default_list_id == "cont"  # the default list shows it as its tip
    assert indexed("cont").lineage_root_id == "root"
    assert not indexed("cont").visible_in_default_list
    assert not indexed("dele").visible_in_default_list
    assert indexed("br").visible_in_default_list
    assert indexed("par").child_count == 1
    state = IndexSyncState.objects.get(endpoint="local")
    assert state.last_full_at is not None and state.running_since is None


def test_incremental_with_nothing_changed_costs_one_list_call(empty_hermes, mock_endpoint):
    seed_many(empty_hermes, 3 * PAGE + 17)
    first = sync.sync(mock_endpoint, full=True)
    assert first.list_calls == 2 * 4  # both lists, four pages each
    assert first.pages == {"children": 4, "default": 4}
    empty_hermes.reset_counts()
    again = sync.sync(mock_endpoint, full=False)
    assert again.counts.any is False
    assert (again.list_calls, empty_hermes.list_calls, empty_hermes.get_calls) == (1, 1, 0)


def test_incremental_picks_up_new_and_active_rows_from_the_top(empty_hermes, mock_endpoint):
    seed_many(empty_hermes, 3 * PAGE)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.add("brand-new", at=9e9, title="New one")
    empty_hermes.rows["s0003"].update(last_active=9e9 + 1, message_count=7)  # a new message
    empty_hermes.reset_counts()
    report = sync.sync(mock_endpoint, full=False)
    assert report.counts.added == 1 and report.counts.changed == 1
    # Changes on page one, none on page two: two calls per list, not the table.
    assert report.list_calls == 4 and report.pages == {"children": 2, "default": 2}
    assert indexed("s0003").message_count == 7
    assert indexed("brand-new").visible_in_default_list


def test_a_deleted_row_vanishes_on_a_full_sweep_after_a_404(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.delete("par")
    empty_hermes.reset_counts()
    report = sync.sync(mock_endpoint, full=True)
    assert report.counts.vanished == 1
    assert indexed("par").vanished_at is not None
    orphan = indexed("br")
    assert (orphan.parent_session_id, orphan.former_parent_id, orphan.kind) == ("", "par", "orphan")
    assert "par" not in {r["id"] for r in queries.search(mock_endpoint, snapshot=99).rows}


def test_a_row_missing_from_the_list_but_still_readable_is_kept(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.archived.add("par")  # not listed any more, but GET still answers
    report = sync.sync(mock_endpoint, full=True)
    assert report.counts.vanished == 0
    row = indexed("par")
    assert row.vanished_at is None and row.listed is False


def test_an_incremental_refresh_does_not_notice_a_deletion_elsewhere(empty_hermes, mock_endpoint):
    """The documented trade-off: deletions by other clients wait for the sweep."""
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.delete("par")
    sync.sync(mock_endpoint, full=False)
    assert indexed("par").vanished_at is None
    sync.sync(mock_endpoint)  # no sweep due yet either
    assert indexed("par").vanished_at is None


def test_a_sweep_becomes_due_after_its_interval(empty_hermes, mock_endpoint, settings):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.delete("par")
    settings.HERMES_INDEX_FULL_SWEEP_SECONDS = 30
    assert sync.sync(mock_endpoint).full is False  # not due yet
    ago = timezone.now() - timedelta(seconds=31)
    IndexSyncState.objects.filter(endpoint="local").update(last_full_at=ago)
    due = sync.sync(mock_endpoint)
    # The regular full sweep rechecks by GET; a list sweep waits for its own interval.
    assert due.recheck is True and due.full is False and due.pages["default"] == 0
    assert indexed("par").vanished_at is not None


def test_changes_made_through_the_dashboard_are_read_back_at_once(
    empty_hermes, mock_endpoint, users
):
    seed_lineage(empty_hermes)
    seed_many(empty_hermes, PAGE + 50)  # newer rows: the lineage sits on page two
    sync.sync(mock_endpoint, full=True)
    # A rename (no new activity, so it stays below unchanged rows) ...
    empty_hermes.rows["par"]["title"] = "Renamed"
    trail.record(
        users["support"],
        capability="session_patch",
        endpoint="local",
        outcome="success",
        session_id="par",
    )
    # ... a fork of an old, already closed session (copied message times) ...
    empty_hermes.add("fork", at=110.0, parent="root", source="api_server")
    remember_fork(mock_endpoint, "root", "fork")
    # ... and a deletion of a parent with a delegate below it.
    empty_hermes.delete("cont")
    trail.record(
        users["admin"],
        capability="session_delete",
        endpoint="local",
        outcome="success",
        session_id="cont",
    )
    empty_hermes.reset_counts()
    report = sync.sync(mock_endpoint, full=False)
    assert report.list_calls == 1
    assert indexed("par").title == "Renamed"
    assert indexed("fork").kind == "branch"  # forked by us, whatever its parent says
    assert indexed("cont").vanished_at is not None
    assert indexed("dele").vanished_at is not None  # cascaded with its parent
    # Already folded in: the next refresh reads nothing again.
    empty_hermes.reset_counts()
    sync.sync(mock_endpoint, full=False)
    assert empty_hermes.get_calls == 0


def test_duplicates_from_moving_rows_are_counted_once(empty_hermes, mock_endpoint, monkeypatch):
    seed_many(empty_hermes, PAGE + 10)
    original = empty_hermes.listing

    def shifting(include_children):
        rows = original(include_children)
        # Activity moved a row from page one to page two between the calls.
        return rows if empty_hermes.list_calls <= 1 else rows[1:2] + rows

    monkeypatch.setattr(empty_hermes, "listing", shifting)
    report = sync.sync(mock_endpoint, full=True)
    assert report.duplicates >= 1
    assert IndexedSession.objects.count() == PAGE + 10


def test_a_failure_mid_sweep_keeps_rows_and_records_the_code(empty_hermes, mock_endpoint):
    seed_many(empty_hermes, 2 * PAGE + 5)
    sync.sync(mock_endpoint, full=True)
    empty_hermes.rows.pop("s0000")
    empty_hermes.fail_list_after = 1
    report = sync.sync(mock_endpoint, full=True)
    assert report.error_code == "session_db_unavailable"
    # An unfinished sweep proves nothing about missing rows.
    assert indexed("s0000").vanished_at is None
    state = IndexSyncState.objects.get(endpoint="local")
    assert state.last_error_code == "session_db_unavailable" and state.running_since is None


def test_only_one_sync_of_an_endpoint_runs_at_a_time(empty_hermes, mock_endpoint):
    assert sync.acquire(mock_endpoint, False) is True
    report = sync.sync(mock_endpoint, full=True)
    assert report.skipped and empty_hermes.list_calls == 0


def test_a_run_that_lost_its_lease_stops_and_writes_nothing(empty_hermes, mock_endpoint):
    seed_many(empty_hermes, PAGE * 3)
    thief = timezone.now() + timedelta(seconds=1)

    def stolen(progress):
        # Another process took the lease after this run stalled past LEASE.
        IndexSyncState.objects.filter(endpoint="local").update(running_since=thief)

    report = sync.sync(mock_endpoint, full=True, on_progress=stolen)
    assert report.error_code == "lease_lost"
    state = IndexSyncState.objects.get(endpoint="local")
    # finish() did not clear the other process's lease, nor record a sweep.
    assert state.running_since == thief and state.last_full_at is None
    # It stopped at its next renewal: one page written, one fetched ahead (of 4 + 4).
    assert empty_hermes.list_calls == 2


def test_the_management_command_syncs_and_reports(empty_hermes, mock_endpoint, capsys):
    seed_lineage(empty_hermes)
    call_command("index_sync", "--full")
    out = capsys.readouterr().out
    assert "local: full sweep" in out and "+5 added" in out
    call_command("index_sync", "--endpoint", "local")
    assert "incremental" in capsys.readouterr().out
    with pytest.raises(CommandError, match="No Hermes endpoint"):
        call_command("index_sync", "--endpoint", "nope")


def test_search_pages_stay_stable_while_the_index_changes(empty_hermes, mock_endpoint):
    seed_many(empty_hermes, 120)
    sync.sync(mock_endpoint, full=True)
    snapshot = IndexSyncState.objects.get(endpoint="local").generation
    first = queries.search(mock_endpoint, snapshot=snapshot, limit=50)
    assert first.total == 120 and first.next_after
    # Between page one and two: a row from page two gets activity, one is new.
    empty_hermes.rows["s0030"].update(last_active=9e9)
    empty_hermes.add("newer", at=9e9 + 5)
    sync.sync(mock_endpoint, full=False)
    after = queries.parse_after(first.next_after)
    second = queries.search(mock_endpoint, snapshot=snapshot, after=after, limit=50)
    third = queries.search(
        mock_endpoint, snapshot=snapshot, after=queries.parse_after(second.next_after), limit=50
    )
    seen = [r["id"] for r in first.rows + second.rows + third.rows]
    assert len(seen) == len(set(seen))  # nothing twice
    assert "newer" not in seen and "s0030" not in seen[50:]
    assert second.changed_since == 2  # and what was left out is counted
    assert len(seen) == 120 - ("s0030" not in seen[:50])


def test_search_filters(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)

    def ids(**filters):
        return {r["id"] for r in queries.search(mock_endpoint, snapshot=0, **filters).rows}

    assert ids(kind="branch") == {"br"}
    assert ids(kind="continuation") == {"cont"}
    assert ids(source="subagent") == {"dele"}
    assert ids(state="closed") == {"root", "par"}
    assert ids(q="PARENT") == {"par", "br"}  # title, case-insensitive
    assert ids(q="preview of dele") == {"dele"}
    assert ids(q="con") == {"cont"}  # id substring


def test_a_fork_recorded_after_its_child_was_indexed_relabels_it(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    empty_hermes.end("par", "user_closed", 250.0)
    empty_hermes.add("late", at=300.0, parent="par", source="api_server")
    sync.sync(mock_endpoint, full=True)
    assert indexed("late").kind == "delegate"  # nothing visible says otherwise
    remember_fork(mock_endpoint, "par", "late")
    report = sync.sync(mock_endpoint, full=False)
    assert indexed("late").kind == "branch" and report.counts.kinds == 1


def test_the_unfiltered_index_page_counts_the_present_sessions_once(
    empty_hermes, mock_endpoint, login
):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    seed_many(empty_hermes, 120)
    sync.sync(mock_endpoint, full=True)
    client = login("support")
    with CaptureQueriesContext(connection) as seen:
        page = client.get("/e/local/sessions/")
    assert page.status_code == 200
    assert "120 matching sessions" in page.content.decode()
    counts = [
        q["sql"]
        for q in seen.captured_queries
        if q["sql"].startswith("SELECT COUNT(*)") and "index_indexedsession" in q["sql"]
    ]
    # The freshness line's count is the table's total (and is cached per sync state).
    assert len(counts) <= 1, counts
    # A filter still gets its own count.
    with CaptureQueriesContext(connection) as seen:
        filtered = client.get("/e/local/sessions/", {"state": "open"}).content.decode()
    expected = queries.search(mock_endpoint, snapshot=0, state="open").total
    assert expected > 50 and f"{expected} matching sessions" in filtered
    counts = [
        q["sql"]
        for q in seen.captured_queries
        if q["sql"].startswith("SELECT COUNT(*)") and "index_indexedsession" in q["sql"]
    ]
    # The filtered table's total is the number of its matching ids (at most
    # COUNT_SCAN of them), read with its first page: no second COUNT (and the
    # freshness line's count is cached from the page before, at the same sync state).
    assert not counts, counts


def test_a_filtered_first_page_counts_beyond_the_id_scan(
    empty_hermes, mock_endpoint, login, monkeypatch
):
    seed_many(empty_hermes, 120)
    sync.sync(mock_endpoint, full=True)
    client = login("support")
    expected = queries.search(mock_endpoint, snapshot=0, state="open")
    monkeypatch.setattr(queries, "COUNT_SCAN", 60)  # fewer than the matches: a COUNT
    fewer = queries.search(mock_endpoint, snapshot=0, state="open")
    assert expected.total > 60 and fewer.total == expected.total
    assert [r["id"] for r in fewer.rows] == [r["id"] for r in expected.rows]
    assert fewer.next_after == expected.next_after
    filtered = client.get("/e/local/sessions/", {"state": "open"}).content.decode()
    assert f"{expected.total} matching sessions" in filtered
