"""Bulk close as a background job, against the real peer behind a gate."""

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from hermes_ui.audit.models import AuditEvent
from hermes_ui.background.jobs.models import Job
from hermes_ui.bulk import close, close_job
from tests.jobs.conftest import read
from tests.jobs.helpers import finished, job_of
from tests.support.waiting import until

pytestmark = [pytest.mark.peer]

_KEY = re.compile(r'name="key"[^>]*value="([A-Za-z0-9_-]+)"')
URL = "/e/local/bulk/close/"
REFRESH = '<meta http-equiv="refresh" content="2">'


def confirm_form(client, ids, reason="resolved") -> dict:
    review = client.post(URL, {"ids": ids})
    assert review.status_code == 200
    key = _KEY.search(review.content.decode()).group(1)
    return {"ids": ids, "stage": "confirm", "key": key, "reason": reason}


def patches(gate) -> int:
    return gate.count("PATCH")


def test_the_post_answers_at_once_and_the_page_follows_the_progress(
    jobs_db, make_sessions, gate, login, peer_endpoint
):
    ids = make_sessions(3)
    support = login("support")
    form = confirm_form(support, ids)
    gate.held = lambda request: request.method == "PATCH"  # Hermes is slow to close
    answer = support.post(URL, form)
    job = job_of(answer)  # 303 to the progress page while no PATCH has finished
    assert job.kind == "bulk_close" and job.total == 3 and job.done == 0
    assert (job.endpoint, job.endpoint_fp) == (peer_endpoint.id, peer_endpoint.fingerprint)
    page = support.get(answer["Location"]).content.decode()
    assert "0 of 3 sessions" in page and REFRESH in page
    assert 'hx-trigger="every 1s"' in page and 'hx-get="/jobs/' in page

    gate.allow(1)
    until(lambda: Job.objects.get(pk=job.pk).done == 1, 30, "the first close never counted")
    polled = support.get(answer["Location"], headers={"HX-Request": "true"}).content.decode()
    assert "<html" not in polled and "1 of 3 sessions" in polled
    assert polled.count('data-verdict="closed"') == 1

    gate.open()
    assert finished(job).state == "done"
    page = support.get(answer["Location"]).content.decode()
    assert REFRESH not in page and "every 1s" not in page
    assert "Done: 3 of 3 sessions (3 closed)" in page
    # The same table the page used to show inline, one row per session.
    assert 'id="bulk-close-results"' in page and page.count('data-verdict="closed"') == 3
    assert all(read(peer_endpoint, sid).end_reason == "resolved" for sid in ids)
    assert patches(gate) == 3

    # The same form again: a new job that replays every outcome and sends nothing.
    again = finished(job_of(support.post(URL, form)))
    assert again.pk != job.pk and again.state == "done"
    assert [row["replayed"] for row in again.rows] == [True] * 3
    assert [row["verdict"] for row in again.rows] == ["closed"] * 3
    assert patches(gate) == 3
    replay_page = support.get(f"/jobs/{again.pk}/").content.decode()
    assert replay_page.count("already submitted: recorded outcome") == 3


def test_the_same_form_while_its_job_runs_shows_that_job(jobs_db, make_sessions, gate, login):
    ids = make_sessions(2)
    support = login("support")
    form = confirm_form(support, ids)
    gate.held = lambda request: request.method == "PATCH"
    first = support.post(URL, form)
    second = support.post(URL, form)  # a double click
    assert first["Location"] == second["Location"]
    assert Job.objects.count() == 1
    gate.open()
    assert finished(job_of(first)).done == 2
    assert patches(gate) == 2


def test_htmx_gets_the_progress_page_in_place(jobs_db, make_sessions, gate, login):
    ids = make_sessions(1)
    support = login("support")
    form = confirm_form(support, ids)
    gate.held = lambda request: request.method == "PATCH"
    answer = support.post(URL, form, headers={"HX-Request": "true"})
    assert answer.status_code == 200
    job = Job.objects.get()
    assert answer["HX-Push-Url"] == f"/jobs/{job.pk}/"
    assert (answer["HX-Retarget"], answer["HX-Reselect"]) == ("#main", "#main")
    assert 'id="job"' in answer.content.decode()
    gate.open()
    finished(job)


def test_an_interrupted_job_shows_its_results_and_the_same_form_replays_them(
    jobs_db, make_sessions, gate, login, users, peer_endpoint
):
    """A process that died after closing the first of three sessions: its job stopped
    renewing its heartbeat. Submitting the same form again closes only the rest."""
    ids = make_sessions(3)
    support = login("support")
    form = confirm_form(support, ids)
    # What the dead process did: the first close, through the same path, and its row.
    first = next(close.close_each(peer_endpoint, users["support"], ids, "resolved", form["key"]))
    assert first.verdict == "closed" and patches(gate) == 1
    long_ago = timezone.now() - timedelta(minutes=5)
    dead = Job.objects.create(
        kind="bulk_close",
        **peer_endpoint.scope(),
        user=users["support"],
        key=close_job.key_for(peer_endpoint, ids, "resolved", form["key"]),
        state="running",
        done=1,
        total=3,
        result={"rows": [vars(first)]},
        runner="a-process-that-died",
        started_at=long_ago,
        heartbeat_at=long_ago,
    )
    page = support.get(f"/jobs/{dead.pk}/").content.decode()
    assert 'data-state="interrupted"' in page and "Interrupted after 1 of 3 sessions" in page
    assert page.count('data-verdict="closed"') == 1  # the results so far
    assert REFRESH not in page and "every 1s" not in page
    assert "nothing is sent to Hermes twice" in page

    again = job_of(support.post(URL, form))
    assert again.pk != dead.pk
    assert Job.objects.get(pk=dead.pk).state == "interrupted"
    rows = finished(again).rows
    replayed = [(r["session_id"], r["replayed"]) for r in rows]
    assert replayed == [(ids[0], True), (ids[1], False), (ids[2], False)]
    assert patches(gate) == 3  # one PATCH per session, in all
    assert all(read(peer_endpoint, sid).end_reason == "resolved" for sid in ids)
    events = AuditEvent.objects.filter(capability="session_patch", session_id=ids[0])
    assert [e.evidence.get("replayed", False) for e in events.order_by("pk")] == [False, True]


def test_only_the_owner_and_admins_see_a_job(db, users, login, colleague):
    job = Job.objects.create(
        kind="bulk_close", endpoint="local", user=users["support"], state="done", done=1, total=1
    )
    url = f"/jobs/{job.pk}/"
    assert login("support").get(url).status_code == 200
    assert login("admin").get(url).status_code == 200
    assert colleague.get(url).status_code == 404
    assert login("reviewer").get(url).status_code == 404
    assert login("reviewer").get("/jobs/999999/").status_code == 404  # the same answer
    anonymous = Client().get(url)
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
