"""A task worker and the schedule wait out a database outage instead of ending with it."""

import logging

from django.db import OperationalError
from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from hermes_ui.background import schedule
from hermes_ui.background.workers import worker as task_worker
from hermes_ui.background.workers.models import WorkerBeat
from hermes_ui.platform import outages
from tests.tasks.test_recovery import running_on


class FlakyWorker:
    """Stands in for django-tasks-db's loop: the database goes away under its first run."""

    def __init__(self, worker_id: str, failures: int = 1):
        self.worker_id, self.running, self.failures, self.runs = worker_id, True, failures, 0

    def run(self):
        self.runs += 1
        if self.runs <= self.failures:
            raise OperationalError("connection to server at 127.0.0.1 failed")


def test_a_worker_waits_out_an_outage_logs_it_once_and_requeues_the_task_it_lost(
    transactional_db, monkeypatch, caplog
):
    monkeypatch.setattr(outages.DATABASE, "_since", None)
    WorkerBeat.objects.create(worker="me", beat_at=timezone.now())
    lost = running_on("me")  # the outage cut this task short: nothing of it runs any more
    looks = iter([False, False, False, True])

    def ready(where):
        if next(looks):
            outages.DATABASE.answered()
            return True
        outages.DATABASE.failed(OperationalError("down"), where)
        return False

    monkeypatch.setattr(task_worker, "database_ready", ready)
    pauses = []
    flaky = FlakyWorker("me")
    with caplog.at_level(logging.INFO, logger="hermes_ui.outages"):
        task_worker.run_through_outages(flaky, pause=pauses.append)

    assert flaky.runs == 2  # it ran on after the outage, in the same process
    assert pauses == [0.25, 0.5, 1.0]  # a growing pause between looks
    lines = [(r.levelname, r.getMessage()) for r in caplog.records if r.name.endswith("outages")]
    assert [level for level, _ in lines] == ["WARNING", "INFO"], lines
    assert "database unreachable (OperationalError in task worker=me)" in lines[0][1]
    assert lines[1][1].startswith("database is back after")
    assert DBTaskResult.objects.get(pk=lost.pk).status == "READY"


def test_a_stopped_worker_does_not_wait_for_the_database(monkeypatch):
    flaky = FlakyWorker("me")
    flaky.running = False  # SIGTERM came first: the error is the stop's, not an outage's
    try:
        task_worker.run_through_outages(flaky, pause=lambda s: None)
    except OperationalError:
        pass
    else:
        raise AssertionError("a stopping worker must not wait out an outage")
    assert flaky.runs == 1


def test_the_schedule_starts_no_round_while_the_database_is_away(monkeypatch, caplog):
    monkeypatch.setattr(outages.DATABASE, "_since", None)

    def away(task):
        raise OperationalError("connection to server at 127.0.0.1 failed")

    monkeypatch.setattr(schedule.rounds, "waiting_args", away)
    with caplog.at_level(logging.INFO):
        assert schedule.start() == []  # the next heartbeat tries again
        assert schedule.start() == []
    lines = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert lines == [
        "database unreachable (OperationalError in starting the periodic rounds): "
        "pages answer 503 and background work waits"
    ], lines  # said once, no stack


def test_an_expected_503_or_a_database_outage_is_no_error_record_but_a_500_is():
    keep = outages.ExpectedOutageFilter().filter

    def record(status, exc=None):
        rec = logging.LogRecord("django.request", logging.ERROR, "", 0, "x", (), None)
        rec.status_code = status
        if exc is not None:
            rec.exc_info = (type(exc), exc, None)
        return rec

    assert not keep(record(503)) and not keep(record(504))
    assert not keep(record(500, OperationalError("server closed the connection")))
    assert keep(record(500, ValueError("a bug")))


def test_a_task_whose_outcome_cannot_be_saved_in_an_outage_is_said_once(monkeypatch, caplog):
    """django-tasks logs a task it could not mark SUCCESSFUL with a stack; when the
    database is away that is the outage, one WARNING, and a real failure keeps its record."""
    monkeypatch.setattr(outages.DATABASE, "_since", None)
    task_log = logging.getLogger("django_tasks")
    with caplog.at_level(logging.INFO):
        for _ in range(2):
            try:
                raise OperationalError("connection pool timeout")
            except OperationalError:
                task_log.exception("Task id=%s path=%s state=%s", "t1", "schedule.run", "FAILED")
        try:
            raise ValueError("a bug in a round")
        except ValueError:
            task_log.exception("Task id=%s path=%s state=%s", "t2", "schedule.run", "FAILED")
    loud = [(r.levelname, r.getMessage()) for r in caplog.records if r.levelno >= logging.WARNING]
    assert loud == [
        (
            "WARNING",
            "database unreachable (OperationalError in a background task): "
            "pages answer 503 and background work waits",
        ),
        ("ERROR", "Task id=t2 path=schedule.run state=FAILED"),
    ], loud
