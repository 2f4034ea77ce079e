"""The turn without JavaScript runs as a background job: the POST answers at once."""

import threading

from hermes_ui.audit.models import AuditEvent
from hermes_ui.background.jobs.models import Job
from hermes_ui.chat.models import Turn
from hermes_ui.web.links import session_url
from tests.chat.turns import only_turn, send
from tests.jobs.helpers import finished, follow, job_of
from tests.support.samples import response

SID = "peer-demo"  # the session of the captured samples (see the ``hermes`` fixture)
CHAT = ("POST", f"/api/sessions/{SID}/chat")


def test_a_slow_answer_never_holds_the_page_and_the_turn_is_sent_once(chat_db, hermes, login):
    at_hermes, answer_now, calls = threading.Event(), threading.Event(), []

    def slow_chat(request):
        calls.append(request)
        at_hermes.set()
        assert answer_now.wait(30), "the test never let Hermes answer"
        return response("060_chat")

    hermes[CHAT] = slow_chat
    support = login("support")
    key = "p" * 24
    try:
        answer = send(support, SID, "hi", htmx=False, key=key)
        job = job_of(answer)  # at once, while Hermes has not answered
        assert (job.kind, job.total, job.result["turn"]) == ("chat_turn", 1, only_turn().pk)
        assert at_hermes.wait(30)
        assert only_turn().state == "pending" and Job.objects.get(pk=job.pk).done == 0
        page = support.get(answer["Location"]).content.decode()
        assert "0 of 1 turn" in page and '<meta http-equiv="refresh" content="2">' in page
        assert f'href="/e/local/turns/{only_turn().pk}/"' in page  # the turn, not its text
        # The same form again while it is being sent: the same job, nothing new.
        again = send(support, SID, "hi", htmx=False, key=key)
        assert again["Location"] == answer["Location"]
    finally:
        answer_now.set()
    done = follow(support, answer)
    assert done.status_code == 302 and done["Location"] == session_url("local", SID) + "#chat"
    turn = only_turn()
    assert (turn.mode, turn.state, turn.answer) == ("sync", "completed", "Echo: hello peer")
    assert "Echo" not in str(finished(job).result)  # the job points at the turn only
    # Submitting the same form after it finished replays: still one turn, one call.
    replay = send(support, SID, "hi", htmx=False, key=key)
    assert replay.status_code == 302 and replay["Location"] == done["Location"]
    assert len(calls) == 1 and Turn.objects.count() == 1 and Job.objects.count() == 1
    assert AuditEvent.objects.filter(capability="session_chat").count() == 1


def test_a_turn_hermes_refuses_ends_on_the_turn_page(chat_db, hermes, login):
    hermes[CHAT] = response("069_chat_bad_part")  # a captured refusal (HTTP 400)
    support = login("support")
    done = follow(support, send(support, SID, "see file", htmx=False))
    turn = only_turn()
    assert turn.rejected and done["Location"] == f"/e/local/turns/{turn.pk}/"
    page = support.get(done["Location"]).content.decode()
    assert "Hermes refused this turn" in page and "uploaded files and document inputs" in page


def test_a_turn_whose_worker_died_is_uncertain_and_never_sent_again(
    transactional_db, hermes, login
):
    """The worker took the turn's job and died waiting for Hermes' answer: the next worker
    resumes the job, which marks the turn uncertain instead of sending it a second time."""
    from django.utils import timezone
    from django_tasks_db.models import DBTaskResult

    from hermes_ui.background.workers import recovery
    from hermes_ui.chat import sync_job
    from tests.support.tasks import drain

    calls = []
    hermes[CHAT] = lambda request: calls.append(request) or response("060_chat")
    support = login("support")
    job = job_of(send(support, SID, "hi", htmx=False))  # queued: no worker runs here
    # What the dead worker left: the job and its task claimed, the turn still pending.
    Job.objects.filter(pk=job.pk).update(state="running", runner="dead-worker")
    DBTaskResult.objects.filter(task_path=sync_job.send_turn.module_path).update(
        status="RUNNING", worker_ids=["dead-worker"], started_at=timezone.now()
    )
    assert only_turn().state == "pending"

    assert len(recovery.requeue_orphans()) == 1
    assert drain() == 1
    turn = only_turn()
    assert (turn.state, turn.error_code) == ("uncertain", "dashboard_restarted")
    assert calls == []  # never sent blindly
    done = finished(job)
    assert done.state == "done" and done.result["next"] == f"/e/local/turns/{turn.pk}/"
    page = support.get(f"/e/local/turns/{turn.pk}/").content.decode()
    assert "check the transcript" in page.lower()
