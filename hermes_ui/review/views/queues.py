"""Review queues of an endpoint: the list with progress, creating one, one queue's page."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import queues, rubrics
from hermes_ui.review.forms import QueueForm
from hermes_ui.review.models import Queue, Rubric
from hermes_ui.web.roles import REVIEWER, role_required


def _default_rubric():
    return Rubric.objects.filter(archived=False).order_by("-is_default", "name").first()


@require_http_methods(["GET", "POST"])
@role_required(REVIEWER)
def queue_list(request: HttpRequest, endpoint) -> HttpResponse:
    ep = get_endpoint(endpoint)
    form = QueueForm(endpoint=ep, initial={"rubric": _default_rubric(), "reviews_needed": 1})
    if request.method == "POST":
        form = QueueForm(request.POST, endpoint=ep)
        if form.is_valid():
            queue = queues.save(request.user, ep, Queue(), form.cleaned_data, created=True)
            messages.success(request, "Queue created. Add sessions from the index or a session.")
            return redirect("review_queue", endpoint=ep.id, queue_id=queue.pk)
    listed = list(queues.of_endpoint(ep))
    progress = queues.counts((q.pk for q in listed), request.user)
    workable = {q.pk for q in queues.workable(request.user, listed)}
    rows = [(q, progress[q.pk], q.pk in workable) for q in listed]
    context = {"endpoint": ep, "rows": rows, "form": form}
    return render(request, "review/queues.html", context, status=400 if form.errors else 200)


@require_http_methods(["GET", "POST"])
@role_required(REVIEWER)
def queue_detail(request: HttpRequest, endpoint, queue_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    queue = queues.get(ep, queue_id)
    initial = {
        "name": queue.name,
        "rubric": queue.rubric,
        "reviews_needed": queue.reviews_needed,
        "any_reviewer": queue.any_reviewer,
        "assignees": list(queue.assignees.all()),
    }
    form = QueueForm(endpoint=ep, queue=queue, initial=initial)
    if request.method == "POST":
        queues.require_manage(request.user, queue)
        form = QueueForm(request.POST, endpoint=ep, queue=queue)
        if form.is_valid():
            queues.save(request.user, ep, queue, form.cleaned_data, created=False)
            messages.success(request, "Queue saved.")
            return redirect("review_queue", endpoint=ep.id, queue_id=queue.pk)
    context = {
        "endpoint": ep,
        "queue": queue,
        "form": form,
        "counts": queues.counts([queue.pk], request.user)[queue.pk],
        "people": queues.per_person(queue, request.user),
        "can_manage": queues.can_manage(request.user, queue),
        "can_work": queues.can_work(request.user, queue),
        "version": rubrics.current(queue.rubric),
        "next_url": reverse("review_next", kwargs={"endpoint": ep.id, "queue_id": queue.pk}),
        "recent": queues.items_seen(request.user, queue).order_by("-id")[:50],
    }
    return render(request, "review/queue.html", context, status=400 if form.errors else 200)
