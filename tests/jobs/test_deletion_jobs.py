"""Filing a bulk deletion and reviewing it as background jobs, against the real peer."""

import pytest
from django.urls import reverse

from hermes_ui.background.jobs.models import Job
from hermes_ui.deletion import batch as batches
from hermes_ui.deletion.models import DeletionBatch, Status
from tests.jobs.helpers import follow, job_of
from tests.support.peers import unreachable
from tests.support.waiting import until

pytestmark = [pytest.mark.peer]

URL = "/e/local/bulk/delete/"
REASON = "Test data clean-up"


def lists_read(request) -> bool:
    return request.method == "GET" and request.url.path == "/api/sessions"


def test_filing_answers_at_once_and_ends_on_the_request_page(jobs_db, make_sessions, gate, login):
    ids = make_sessions(3, "bulkdel")
    support = login("support")
    gate.held = lists_read  # reading Hermes' lists to the end is slow
    answer = support.post(URL, {"ids": ids, "stage": "confirm", "reason": REASON})
    job = job_of(answer)
    assert (job.kind, job.total, job.done) == ("bulk_delete", 3, 0)
    assert not DeletionBatch.objects.exists()  # nothing filed while Hermes has not answered
    page = support.get(answer["Location"]).content.decode()
    assert "0 of 3 sessions" in page and 'http-equiv="refresh"' in page
    gate.open()
    done = follow(support, answer)
    batch = DeletionBatch.objects.get()
    assert done.status_code == 302
    assert done["Location"] == reverse("deletion_batch", kwargs={"pk": batch.pk})
    assert sorted(m.session_id for m in batch.members.all()) == sorted(ids)
    assert Job.objects.get(pk=job.pk).done == 3
    # htmx polling a finished job is sent on to the request page too.
    polled = support.get(answer["Location"], headers={"HX-Request": "true"})
    assert polled["HX-Redirect"] == done["Location"]


def test_hermes_down_fails_the_job_and_files_nothing(jobs_db, settings, users, login):
    unreachable(settings)
    settings.HERMES_READ_RETRIES = 0
    support = login("support")
    answer = support.post(URL, {"ids": ["gone-1"], "stage": "confirm", "reason": REASON})
    page = follow(support, answer)
    assert page.status_code == 200
    html = page.content.decode()
    assert 'data-state="failed"' in html and 'data-code="transport"' in html
    assert "nothing was filed" in html and 'id="job-back"' in html
    assert not DeletionBatch.objects.exists()


def test_the_approval_runs_off_the_request_and_returns_to_the_batch(
    jobs_db, make_sessions, gate, login, users, peer_endpoint
):
    ids = make_sessions(2, "approval")
    batch = batches.create(peer_endpoint, ids, users["support"], REASON)
    admin = login("admin")
    gate.held = lambda request: request.method == "GET" and "/messages" in request.url.path
    decision = {"decision": "approve", "policy_rule": "test_or_duplicate", "comment": "Checked"}
    answer = admin.post(reverse("deletion_batch_decide", kwargs={"pk": batch.pk}), decision)
    job = job_of(answer)
    assert (job.kind, job.total, job.done) == ("deletion_batch_approval", 2, 0)
    assert job.endpoint == batch.endpoint
    assert gate.waiting.wait(30)  # the first member's re-read is at Hermes
    batch_page = admin.get(reverse("deletion_batch", kwargs={"pk": batch.pk})).content.decode()
    assert 'id="batch-approving"' in batch_page and 'id="batch-decision"' not in batch_page
    # Posting the decision again meanwhile shows the running one; nothing starts twice.
    again = admin.post(reverse("deletion_batch_decide", kwargs={"pk": batch.pk}), decision)
    assert again["Location"] == answer["Location"]
    gate.allow(1)
    until(lambda: Job.objects.get(pk=job.pk).done >= 1, 30, "the first member was not counted")
    gate.open()
    done = follow(admin, answer)
    assert done.status_code == 302
    assert done["Location"] == reverse("deletion_batch", kwargs={"pk": batch.pk})
    page = admin.get(done["Location"]).content.decode()
    assert "Decided 2; void because changed 0; not decided 0." in page
    assert all(m.status == Status.APPROVED for m in batch.members.all())


def test_a_review_the_reviewer_may_not_give_is_refused_at_once(
    jobs_db, make_sessions, login, users, peer_endpoint
):
    batch = batches.create(peer_endpoint, make_sessions(1, "own"), users["admin"], REASON)
    decision = {"decision": "approve", "policy_rule": "test_or_duplicate", "comment": "Mine"}
    answer = login("admin").post(
        reverse("deletion_batch_decide", kwargs={"pk": batch.pk}), decision
    )
    assert answer.status_code == 403 and 'data-code="self_approval"' in answer.content.decode()
    assert not Job.objects.exists()
