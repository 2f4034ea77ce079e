"""Download a review dataset (JSONL or CSV) of a queue or of an index search, streamed."""

from asgiref.sync import sync_to_async
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import dataset, dataset_download, rules
from hermes_ui.review.dataset_forms import DatasetQuery, SearchDatasetQuery
from hermes_ui.review.queue_access import queue_of
from hermes_ui.web import download_limits
from hermes_ui.web.errors import too_many
from hermes_ui.web.roles import SUPPORT, role_of, role_required


@require_GET
async def queue_dataset(request: HttpRequest, endpoint, queue) -> HttpResponse:
    """Async, so the ASGI handler streams without holding a page thread (as session exports)."""
    return await sync_to_async(_queue)(request, endpoint, queue)


@require_GET
async def search_dataset(request: HttpRequest, endpoint) -> HttpResponse:
    return await sync_to_async(_search)(request, endpoint)


@role_required(SUPPORT)
def _queue(request, endpoint, queue):
    ep = get_endpoint(endpoint)
    queue = queue_of(ep, queue)
    form = DatasetQuery(request.GET or None)
    context = {"endpoint": ep, "queue": queue, "form": form}
    if not form.is_bound or not form.is_valid():
        return _page(request, context, form)
    source = dataset.Source(
        ep, dataset.queue_sessions(queue, request.user), form.cleaned_data["per"], queue
    )
    return _download(request, source, form, f"queue-{queue.pk}", {"id": queue.pk})


@role_required(SUPPORT)
def _search(request, endpoint):
    ep = get_endpoint(endpoint)
    form = SearchDatasetQuery(
        request.GET if "format" in request.GET else None, initial={"q": request.GET.get("q", "")}
    )
    context = {"endpoint": ep, "queue": None, "form": form}
    if not form.is_bound or not form.is_valid():
        return _page(request, context, form)
    if notes := form.search_notes():
        # Say what was searched as words before exporting; the next submission downloads.
        data = request.GET.copy()
        data["words"] = "on"
        context.update(notes=notes, form=SearchDatasetQuery(data))
        return _page(request, context, form)
    ids = rules.matches(ep, form.cleaned_data["q"], request.user)
    source = dataset.Source(ep, ids, form.cleaned_data["per"])
    return _download(request, source, form, "search", {})


def _page(request, context, form):
    context["support"] = role_of(request.user, context["endpoint"].id) == SUPPORT
    return render(request, "review/dataset.html", context, status=400 if form.errors else 200)


def _download(request, source, form, name: str, facts: dict):
    try:
        return dataset_download.stream(request, source, form.cleaned_data, name, facts)
    except download_limits.Busy as busy:
        return too_many(request, busy.message)
