"""Adding items to a queue: a session or one message (session page, message menu), and a
bulk selection of the index."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from hermes_ui.hermes.ids import IdError, check_path_id
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import items, queues
from hermes_ui.review.forms import AddForm, BulkAddForm
from hermes_ui.search import selection
from hermes_ui.web import links
from hermes_ui.web.failures import bad_id
from hermes_ui.web.roles import REVIEWER, role_required


def _available(user, ep):
    listed = list(queues.of_endpoint(ep))
    allowed = [q.pk for q in queues.workable(user, listed)]
    return queues.of_endpoint(ep).filter(pk__in=allowed)


@require_http_methods(["GET", "POST"])
@role_required(REVIEWER)
def review_add(request: HttpRequest, endpoint, session_id) -> HttpResponse:
    """Add this session (or, with ``message``, one of its messages) to a queue."""
    ep = get_endpoint(endpoint)
    try:
        check_path_id(session_id)
    except IdError as exc:
        return bad_id(request, ep, str(exc))
    available = _available(request.user, ep)
    data = request.POST if request.method == "POST" else None
    form = AddForm(data, available=available, initial={"message": request.GET.get("message")})
    if data is not None and form.is_valid():
        queue, message_id = form.cleaned_data["queue"], form.cleaned_data["message"]
        via = "page" if message_id is None else "message"
        added = items.add(request.user, ep, queue, [session_id], message_id=message_id, via=via)
        what = "session" if message_id is None else f"message #{message_id}"
        text = (
            f"Added the {what} to “{queue.name}”."
            if added
            else f"The {what} was already in “{queue.name}”."
        )
        messages.success(request, text)
        anchor = f"#msg-{message_id}" if message_id is not None else "#review-labels"
        return redirect(links.session_url(ep.id, session_id) + anchor)
    context = {
        "endpoint": ep,
        "session_id": session_id,
        "form": form,
        "has_queues": available.exists(),
    }
    return render(request, "review/add.html", context, status=400 if form.errors else 200)


@require_POST
@role_required(REVIEWER)
def review_bulk_add(request: HttpRequest, endpoint) -> HttpResponse:
    """From the index's bulk bar: pick the queue (``stage`` absent), then add them all."""
    ep = get_endpoint(endpoint)
    context = selection.review(ep, request.POST, request.user, REVIEWER)
    if context["selection"].error:
        return render(request, "review/bulk_add.html", context, status=400)
    available = _available(request.user, ep)
    context["has_queues"] = available.exists()
    if request.POST.get("stage") != "confirm":
        context["form"] = BulkAddForm(available=available)
        return render(request, "review/bulk_add.html", context)
    form = BulkAddForm(request.POST, available=available)
    if not form.is_valid():
        return render(request, "review/bulk_add.html", {**context, "form": form}, status=400)
    queue, ids = form.cleaned_data["queue"], context["selection"].ids
    added = items.add(request.user, ep, queue, ids, via="bulk")
    messages.success(
        request,
        f"Added {added} of {len(ids)} sessions to “{queue.name}” "
        f"({len(ids) - added} were already in it).",
    )
    return redirect("review_queue", endpoint=ep.id, queue_id=queue.pk)
