"""Putting back in the queue what a dead worker left RUNNING, and the heartbeat row."""

from datetime import timedelta

from django.utils import timezone
from django_tasks_db.models import DBTaskResult

from hermes_ui.background.workers import liveness, recovery
from hermes_ui.background.workers.models import WorkerBeat
from hermes_ui.background.workers.worker import Heart
from hermes_ui.review import rules_task
from tests.support.waiting import until


def running_on(worker_id: str) -> DBTaskResult:
    result = rules_task.run_rules.enqueue("nowhere", "0" * 16)
    DBTaskResult.objects.filter(pk=result.id).update(
        status="RUNNING", worker_ids=[worker_id], started_at=timezone.now()
    )
    return DBTaskResult.objects.get(pk=result.id)


def test_only_a_dead_workers_task_is_requeued_and_only_once(transactional_db):
    WorkerBeat.objects.create(worker="alive", beat_at=timezone.now())
    WorkerBeat.objects.create(worker="dead", beat_at=timezone.now() - timedelta(minutes=5))
    mine, orphan, unknown = running_on("alive"), running_on("dead"), running_on("never-beat")

    assert sorted(recovery.requeue_orphans()) == sorted([str(orphan.pk), str(unknown.pk)])
    # Only these three: the flush before a transactional test re-runs post_migrate,
    # which queues the notifications' and webhooks' rounds.
    ours = DBTaskResult.objects.filter(pk__in=[mine.pk, orphan.pk, unknown.pk])
    statuses = dict(ours.values_list("pk", "status"))
    assert statuses == {mine.pk: "RUNNING", orphan.pk: "READY", unknown.pk: "READY"}
    assert recovery.requeue_orphans() == []  # a second recoverer finds nothing to do


def test_a_task_claimed_again_meanwhile_is_not_requeued(transactional_db):
    orphan = running_on("dead")
    # Another worker requeued and claimed it between our read and our update.
    DBTaskResult.objects.filter(pk=orphan.pk).update(
        worker_ids=["dead", "other"], started_at=timezone.now() + timedelta(seconds=1)
    )
    WorkerBeat.objects.create(worker="other", beat_at=timezone.now())
    assert recovery.requeue_orphans() == []
    assert DBTaskResult.objects.get(pk=orphan.pk).status == "RUNNING"


def test_the_heartbeat_row_says_alive_and_goes_when_the_worker_stops(transactional_db):
    assert liveness.workers().words == "none has run yet"
    with Heart("beating", every=0.05):
        assert liveness.workers().alive == 1 and liveness.alive_ids() == {"beating"}
    assert not WorkerBeat.objects.exists()
    WorkerBeat.objects.create(worker="old", beat_at=timezone.now() - timedelta(minutes=5))
    assert liveness.workers().words == "none alive"


def test_readyz_and_the_endpoints_page_show_whether_a_worker_is_alive(
    transactional_db, client, login, mock_endpoint
):
    assert client.get("/readyz").content == b"ready\ntask workers: none has run yet\n"
    WorkerBeat.objects.create(worker="w1", beat_at=timezone.now())
    ready = client.get("/readyz")
    assert ready.status_code == 200 and ready.content == b"ready\ntask workers: 1 alive\n"
    page = login("support").get("/endpoints/").content.decode()
    assert 'id="task-workers" data-alive="1"' in page and "1 alive" in page


def test_a_real_worker_process_beats_and_runs_a_task(task_worker_process):
    result = rules_task.run_rules.enqueue("nowhere", "0" * 16)
    until(
        lambda: DBTaskResult.objects.get(pk=result.id).status == "SUCCESSFUL",
        30,
        "the worker process never ran the task",
    )
    assert DBTaskResult.objects.get(pk=result.id).worker_ids == ["test-process"]
    assert liveness.alive_ids() == {"test-process"}
    assert task_worker_process.stop() == 0  # SIGTERM: a clean stop
    assert not WorkerBeat.objects.exists()  # and its row is gone


def test_a_worker_taken_for_dead_stops_writing_once_another_took_its_job(transactional_db):
    from hermes_ui.background.jobs import runner
    from hermes_ui.background.jobs.models import Job

    job = Job.objects.create(kind="bulk_close", endpoint="local", total=3)
    reached = []

    def work(current, progress, resumed):
        progress.step({"session_id": "a"})
        # Its heartbeat was late: another worker requeued and claimed the job meanwhile.
        Job.objects.filter(pk=current.pk).update(runner="second")
        progress.step({"session_id": "b"})
        reached.append("after")  # never: the write above stops this run

    runner.execute(job.pk, work, "first")
    job.refresh_from_db()
    assert reached == [] and (job.state, job.runner, job.done) == ("running", "second", 1)
    assert [row["session_id"] for row in job.rows] == ["a"]  # nothing of the stale run after
