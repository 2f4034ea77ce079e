"""A job's progress page: "N of M", its state, then its results or where they are."""

from collections import Counter

from django.contrib import messages
from django.http import Http404, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from hermes_ui.access.rules import access_of
from hermes_ui.background.jobs import kinds
from hermes_ui.background.jobs.models import Job, JobState
from hermes_ui.background.workers import liveness
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import ADMIN

TEMPLATE = "jobs/job.html"
POLL_SECONDS = 1
REFRESH_SECONDS = 2  # the page reloads itself this often without JavaScript


@require_GET
@vary_on_headers("HX-Request")
def job_page(request: HtmxHttpRequest, pk: int) -> HttpResponse:
    job = Job.objects.filter(pk=pk).first()
    # Only who may see it learns that a job exists at all.
    if job is None or not may_see(job, request.user):
        raise Http404("No such job.")
    target = job.result.get("next")
    if job.shown_state == JobState.DONE and target:
        # Finished somewhere else (a filed bulk deletion, a reviewed batch, a turn).
        if job.result.get("summary"):
            messages.info(request, job.result["summary"])
        return HttpResponseClientRedirect(target) if request.htmx else redirect(target)
    template = f"{TEMPLATE}#job" if request.htmx else TEMPLATE
    return render(request, template, context(job))


def may_see(job: Job, user) -> bool:
    """Its owner, and admins of its endpoint; nobody, on an endpoint they may not see.

    The one rule (``access.rules``): a job's rows name sessions of every source of
    its endpoint, so an admin there for every source reads it (an admin on ``*``
    for a job of no endpoint); its owner reads it while they still see the endpoint.
    """
    access = access_of(user)
    if job.endpoint and access.role_on(job.endpoint, any_source=True) is None:
        return False
    if job.user_id is not None and job.user_id == user.pk:
        return True
    if not job.endpoint:
        return access.instance_admin
    return access.has(ADMIN, job.endpoint)


def context(job: Job) -> dict:
    rows = job.rows
    counts = Counter(row.get("verdict") for row in rows if row.get("verdict"))
    return {
        "job": job,
        "kind": kinds.of(job.kind),
        "state": job.shown_state,
        "rows": rows,
        "counts": sorted(counts.items()),
        # A running job whose worker died is resumed by the next one (hermes_ui.background.workers).
        "resumes": job.state == JobState.RUNNING,
        "workers_alive": bool(liveness.alive_ids()) if job.state == JobState.QUEUED else True,
        "poll_seconds": POLL_SECONDS,
        "refresh_seconds": REFRESH_SECONDS,
    }
