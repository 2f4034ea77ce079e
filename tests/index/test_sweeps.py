"""Full sweeps: an interval that adapts to the last sweep, and default-list visibility
derived from the administrative list (read once) between confirming sweeps."""

import time
from datetime import timedelta

import pytest
from django.utils import timezone

from hermes_ui.index import sweeps, sync
from hermes_ui.index.models import IndexedSession, IndexSyncState
from tests.index.test_sync import indexed, seed_lineage, seed_many

pytestmark = pytest.mark.django_db


def state():
    return IndexSyncState.objects.get(endpoint="local")


def slow_lists(monkeypatch, fake, seconds):
    listing = fake._list
    monkeypatch.setattr(fake, "_list", lambda request: (time.sleep(seconds), listing(request))[1])


def test_a_slow_sweep_pushes_the_next_one_back_to_several_times_its_duration(
    empty_hermes, mock_endpoint, settings, monkeypatch
):
    settings.HERMES_INDEX_FULL_SWEEP_SECONDS = (
        1  # the floor (tests only: the setting's minimum is 30)
    )
    settings.HERMES_INDEX_CONTENT = False
    seed_lineage(empty_hermes)
    slow_lists(monkeypatch, empty_hermes, 0.15)
    report = sync.sync(mock_endpoint, full=True)
    took = report.seconds
    assert took >= 0.3 and state().last_report["full_seconds"] == pytest.approx(took)
    assert sweeps.interval(state()) == pytest.approx(sweeps.SPACING * took)
    assert sweeps.SPACING * took > 1  # past the floor: the sweep's length decides

    # Past the floor, but not yet several times the sweep's length: not due.
    between = 1 + (sweeps.SPACING * took - 1) / 2
    IndexSyncState.objects.update(last_full_at=timezone.now() - timedelta(seconds=between))
    incremental = sync.sync(mock_endpoint)
    assert incremental.full is False
    # An incremental refresh does not make the last sweep's length forgotten.
    assert state().last_report["full_seconds"] == pytest.approx(took)

    later = sweeps.SPACING * took + 0.5
    IndexSyncState.objects.update(last_full_at=timezone.now() - timedelta(seconds=later))
    # The full sweep due is a recheck sweep (by GET); the list sweep waits for its own interval.
    due = sync.sync(mock_endpoint)
    assert due.recheck is True and due.full is False
    assert due.rechecked == IndexedSession.objects.filter(vanished_at__isnull=True).count()


def test_a_fast_sweep_leaves_the_setting_as_the_interval(empty_hermes, mock_endpoint, settings):
    settings.HERMES_INDEX_FULL_SWEEP_SECONDS = 900
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    assert sweeps.interval(state()) == 900
    IndexSyncState.objects.update(last_full_at=timezone.now() - timedelta(seconds=899))
    assert sync.sync(mock_endpoint).full is False


def test_between_confirming_sweeps_the_default_list_is_not_paged(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    seed_many(empty_hermes, sync.PAGE + 50)
    first = sync.sync(mock_endpoint, full=True)
    # The first sweep reads both lists to the end and checks the derivation against it.
    assert first.pages["default"] >= 2
    assert first.derived["disagreed"] == 0
    assert first.derived["certain"] == sync.PAGE + 50 + 1  # the seeded roots and "par"
    assert first.derived["uncertain"] == 4  # the compression root, continuation, delegate, branch

    # A root Hermes lists from now on (new, so it is also on the top of both lists).
    empty_hermes.add("late", at=50.0, title="Late")  # older than everything: page two
    second = sync.sync(mock_endpoint, full=True)
    assert second.pages["children"] >= 2 and second.pages["default"] <= 1
    assert indexed("late").visible_in_default_list and indexed("late").default_list_id == "late"
    # Rows whose visibility needs the default list keep what it said last time.
    assert indexed("br").visible_in_default_list
    assert not indexed("dele").visible_in_default_list
    assert not indexed("cont").visible_in_default_list
    assert indexed("root").visible_in_default_list and indexed("root").default_list_id == "cont"

    # Every CONFIRM_EVERY-th sweep reads the default list to the end again.
    IndexSyncState.objects.update(sweep=sweeps.CONFIRM_EVERY)
    third = sync.sync(mock_endpoint, full=True)
    assert third.pages["default"] >= 2 and third.derived["disagreed"] == 0


def test_certain_rows_are_parentless_non_subagent_rows_that_were_not_compressed():
    assert sweeps.certain({"id": "a", "parent_session_id": None, "source": "cli"})
    assert not sweeps.certain({"id": "b", "parent_session_id": "a", "source": "cli"})
    assert not sweeps.certain({"id": "c", "end_reason": "compression"})
    assert not sweeps.certain({"id": "d", "source": "subagent"})
    assert IndexedSession.objects.count() == 0


@pytest.mark.peer
def test_the_derivation_agrees_with_a_real_hermes_default_list(settings, hermes_peer):
    from tests.support.peers import endpoint_for

    settings.HERMES_INDEX_CONTENT = False
    report = sync.sync(endpoint_for(settings, hermes_peer), full=True)
    assert report.pages["default"] >= 1 and not report.error_code
    # The demo peer has compression chains, branches, forks and delegates.
    assert report.derived["uncertain"] > 0 and report.derived["certain"] > 100
    assert report.derived["disagreed"] == 0
