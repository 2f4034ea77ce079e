"""Review queues: the list with progress, one queue's progress per state and reviewer,
and its dataset: the page's own streamed, digested download (``review.dataset_download``)."""

from asgiref.sync import sync_to_async
from ninja import Router

from hermes_ui.api.errors import ApiError, bad_request
from hermes_ui.api.routes import common
from hermes_ui.review import dataset, dataset_download, queues
from hermes_ui.review.dataset_forms import DatasetQuery
from hermes_ui.review.queue_access import queue_of
from hermes_ui.web import download_limits
from hermes_ui.web.roles import REVIEWER, SUPPORT

router = Router(tags=["review"])


def _queue(queue, progress: dict, workable: set) -> dict:
    return {
        "id": queue.pk,
        "name": queue.name,
        "rubric": queue.rubric.name,
        "reviews_needed": queue.reviews_needed,
        "any_reviewer": queue.any_reviewer,
        "owner": queue.owner.get_username() if queue.owner else None,
        "you_may_review": queue.pk in workable,
        "progress": progress,
    }


@router.get("/e/{endpoint}/review/queues", summary="Review queues with progress")
def queue_list(request, endpoint: str):
    ep = common.endpoint(request, endpoint, REVIEWER)
    listed = list(queues.of_endpoint(ep))
    progress = queues.counts((q.pk for q in listed), request.user)
    workable = {q.pk for q in queues.workable(request.user, listed)}
    return {"data": [_queue(q, progress[q.pk], workable) for q in listed]}


@router.get("/e/{endpoint}/review/queues/{int:queue_id}", summary="One queue's progress")
def queue_detail(request, endpoint: str, queue_id: int):
    """Items per state, and per reviewer: completed, waiting for others, drafts, skipped,
    still to review."""
    ep = common.endpoint(request, endpoint, REVIEWER)
    queue = queues.get(ep, queue_id)
    progress = queues.counts([queue.pk], request.user)[queue.pk]
    workable = {q.pk for q in queues.workable(request.user, [queue])}
    body = _queue(queue, progress, workable)
    body["reviewers"] = [
        {
            "name": person.name,
            "assigned": person.assigned,
            "completed": person.completed,
            "needs_others": person.needs_others,
            "drafts": person.drafts,
            "skipped": person.skipped,
            "needs_review": person.needs_review,
        }
        for person in queues.per_person(queue, request.user)
    ]
    return body


@router.get(
    "/e/{endpoint}/review/queues/{int:queue_id}/dataset",
    summary="The queue's labelled dataset (JSONL or CSV, streamed)",
)
async def queue_dataset(
    request,
    endpoint: str,
    queue_id: int,
    format: str = "jsonl",
    per: str = "message",
    redact: str = "1",
):
    """The same bytes as the dataset page's download for the same queue and role: masked
    unless a reviewer or admin passes ``redact=0``; the last line carries the SHA-256."""
    # Async, as the page's: under ASGI the download streams without holding a page thread.
    return await sync_to_async(_queue_dataset)(request, endpoint, queue_id, format, per, redact)


def _queue_dataset(request, endpoint, queue_id, format, per, redact):
    ep = common.endpoint(request, endpoint, SUPPORT)
    queue = queue_of(ep, queue_id)
    form = DatasetQuery({"format": format, "per": per, "redact": redact})
    if not form.is_valid():
        raise bad_request(form.reason())
    ids = common.visible(request, ep, dataset.queue_sessions(queue))
    source = dataset.Source(ep, ids, form.cleaned_data["per"], queue)
    try:
        return dataset_download.stream(
            request, source, form.cleaned_data, f"queue-{queue.pk}", {"id": queue.pk}
        )
    except download_limits.Busy as busy:
        raise ApiError(
            429, "too_many_downloads", busy.message, headers={"Retry-After": "5"}
        ) from None
