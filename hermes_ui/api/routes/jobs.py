"""Bulk close as the page's job (``bulk.close_job``), and a job's progress.

The selection is the bulk page's (``search.selection.resolve``: at most
``HERMES_BULK_LIMIT`` ids, each one the person may act on, a hidden one as "not
found"); each session then goes through the same per-session key, record and
audit event as on the page. A job is seen by its owner and by admins of its
endpoint (``background.jobs.views.may_see``), and by nobody else: a 404.
"""

from __future__ import annotations

from django.http import Http404, HttpResponse, QueryDict
from django.urls import reverse
from ninja import Field, Router, Schema, Status

from hermes_ui.api.document import Line, SessionId
from hermes_ui.api.errors import bad_request
from hermes_ui.api.routes import common, keys
from hermes_ui.api.routes.changes import form_errors
from hermes_ui.background.jobs.models import Job
from hermes_ui.background.jobs.views import may_see
from hermes_ui.bulk import close_job
from hermes_ui.changes.forms import COMMON_REASONS, OTHER, CloseForm
from hermes_ui.search import selection
from hermes_ui.web.roles import SUPPORT

router = Router(tags=["jobs"])
_REASONS = {value for value, _ in COMMON_REASONS}


class BulkClose(Schema):
    session_ids: list[SessionId] = Field(json_schema_extra={"minItems": 1})
    end_reason: Line


class JobOut(Schema):
    job_id: int
    kind: str
    state: str
    done: int
    total: int
    rows: list[dict]
    error_code: str = ""
    location: str
    replayed: bool = False


def job_url(job: Job) -> str:
    return reverse("api_v1:job_get", kwargs={"job_id": job.pk})


def job_out(job: Job, replayed: bool = False) -> dict:
    return {
        "job_id": job.pk,
        "kind": job.kind,
        "state": job.shown_state,
        "done": job.done,
        "total": job.total,
        # Ids, verdicts and codes only (what the progress page shows).
        "rows": job.rows,
        "error_code": job.error_code,
        "location": job_url(job),
        "replayed": replayed,
    }


@router.post(
    "/e/{endpoint}/bulk/close",
    response={202: JobOut},
    summary="Close many sessions (a job)",
    operation_id="bulk_close",
)
def bulk_close(request, response: HttpResponse, endpoint: str, body: BulkClose):
    """Answers at once with the job (``Location``); each session's verdict is in the
    job's ``rows`` as it goes. The first close reason of a session stays."""
    ep = common.endpoint(request, endpoint, SUPPORT)
    keys.write_key(request)
    data = QueryDict(mutable=True)
    data.setlist("ids", body.session_ids)
    chosen = selection.resolve(ep, data, request.user, SUPPORT)
    if chosen.error:
        raise bad_request(chosen.error, "bad_selection")
    claim = keys.claim(request, "bulk_close", ep, body.dict())
    first = Job.objects.filter(pk=claim.pointer.get("job_id") or 0, user=request.user).first()
    if not claim.fresh and first is not None:  # the same request again: its own job
        response["Location"] = job_url(first)
        return Status(202, job_out(first, replayed=True))
    reason = body.end_reason
    choice = {"reason": reason} if reason in _REASONS else {"reason": OTHER, "other": reason}
    form = CloseForm({"key": claim.key, **choice})
    if not form.is_valid():
        claim.release()
        raise bad_request(form_errors(form))
    job = close_job.start(ep, request.user, chosen.ids, form.cleaned_data["end_reason"], claim.key)
    claim.done({"job_id": job.pk})
    response["Location"] = job_url(job)
    return Status(202, job_out(job, replayed=not claim.fresh))


@router.get(
    "/jobs/{int:job_id}",
    response={200: JobOut},
    summary="A job's state and progress",
    operation_id="job_get",
)
def job_get(request, job_id: int):
    job = Job.objects.filter(pk=job_id).first()
    # Only who may see it learns that a job exists at all.
    if job is None or not may_see(job, request.user):
        raise Http404("No such job.")
    return job_out(job)
