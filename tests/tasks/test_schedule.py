"""The one table of periodic work: each round queues its next run, once, and starts by itself."""

import logging
from datetime import timedelta

import pytest
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from hermes_ui.background import rounds, schedule
from hermes_ui.background.workers import erase


def waiting(name: str) -> list:
    return [args for args in rounds.waiting_args(schedule.run) if args == [name]]


@pytest.mark.django_db
def test_start_queues_every_round_that_is_on_once(settings):
    settings.HERMES_UI_ENDPOINT_WATCH_SECONDS = 0  # off: not started
    started = schedule.start()
    assert "probes" not in started and {"index", "digests", "turn-purge"} <= set(started)
    assert schedule.start() == []  # each already waits
    assert all(len(waiting(name)) == 1 for name in started)


@pytest.mark.django_db
def test_a_round_queues_its_next_run_before_working_and_only_one(monkeypatch, settings):
    settings.HERMES_UI_ROUND_SECONDS = 30
    worked = []
    entry = schedule.Periodic("digests", lambda: 30, lambda: worked.append(waiting("digests")))
    monkeypatch.setitem(schedule.BY_NAME, "digests", entry)
    schedule.run.call("digests")
    schedule.run.call("digests")
    assert worked == [[["digests"]], [["digests"]]]  # the next run waited while it worked
    later = DBTaskResult.objects.get(task_path=schedule.run.module_path)
    assert later.run_after > timezone.now() + timedelta(seconds=20)


@pytest.mark.django_db
def test_a_round_turned_off_or_gone_ends(settings):
    settings.HERMES_INDEX_REFRESH_SECONDS = 0
    assert schedule.run.call("index") is None and schedule.run.call("no-such-round") is None
    assert not DBTaskResult.objects.filter(task_path=schedule.run.module_path).exists()


def test_every_round_has_a_unique_name_and_a_callable_work():
    assert len(schedule.BY_NAME) == len(schedule.SCHEDULE)
    assert all(callable(entry.work) and callable(entry.seconds) for entry in schedule.SCHEDULE)
    assert schedule.QUEUE == erase.ROUNDS_QUEUE


@pytest.mark.django_db
def test_finished_round_records_go_after_an_hour_others_after_a_day():
    round_run = schedule.run.enqueue("digests")
    job_task = schedule.run.using(queue_name="default").enqueue("digests")
    two_hours_ago = timezone.now() - timedelta(hours=2)
    DBTaskResult.objects.filter(pk__in=[round_run.id, job_task.id]).update(
        status="SUCCESSFUL", finished_at=two_hours_ago
    )
    assert erase.prune() == 1
    assert [str(pk) for pk in DBTaskResult.objects.values_list("pk", flat=True)] == [job_task.id]


@pytest.mark.django_db
def test_a_round_cut_short_by_a_database_outage_ends_quietly(monkeypatch, caplog):
    from django.db import OperationalError

    from hermes_ui.platform import outages

    monkeypatch.setattr(outages.DATABASE, "_since", None)

    def away():
        raise OperationalError("server closed the connection unexpectedly")

    monkeypatch.setitem(schedule.BY_NAME, "digests", schedule.Periodic("digests", lambda: 30, away))
    with caplog.at_level(logging.INFO):
        assert schedule.run.call("digests") is None
        assert schedule.run.call("digests") is None
    loud = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert loud == [
        "database unreachable (OperationalError in round digests): "
        "pages answer 503 and background work waits"
    ]
    assert not [r for r in caplog.records if r.exc_info]  # no stack for an outage


@pytest.mark.django_db
def test_a_lease_an_outage_kept_is_released_by_the_next_sync_of_the_process(mock_endpoint):
    from hermes_ui.index import lease
    from hermes_ui.index.models import IndexSyncState
    from hermes_ui.platform.endpoints import get_endpoint

    endpoint = get_endpoint("local")
    assert lease.acquire(endpoint, False)
    state = IndexSyncState.objects.get(**endpoint.scope())
    assert not lease.acquire(endpoint, False)  # held: another sync would be skipped
    lease.strand(state.pk, state.running_since)  # its release failed in an outage
    assert lease.acquire(endpoint, False)
