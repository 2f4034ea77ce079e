"""Working a queue: open the next item, label it (save, complete and next, skip), and an
admin's pick of the authoritative review."""

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from hermes_ui.hermes import HermesError
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.review import item_page, items, labelling, queues, rubrics
from hermes_ui.review.forms import ActionForm
from hermes_ui.review.models import Review
from hermes_ui.web import params
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.roles import ADMIN, REVIEWER, role_required


def _item(request, ep, queue_id: int, item_id: int, needed: str = REVIEWER):
    queue = queues.get(ep, queue_id)
    return queue, items.visible(request.user, ep, queue, item_id, needed)


@require_GET
@role_required(REVIEWER)
def review_next(request: HttpRequest, endpoint, queue_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    queue = queues.get(ep, queue_id)
    queues.require_work(request.user, queue)
    item_id = items.next_for(request.user, queue)
    if item_id is None:
        context = {
            "endpoint": ep,
            "queue": queue,
            "counts": queues.counts([queue.pk], request.user)[queue.pk],
        }
        return render(request, "review/done.html", context)
    return redirect(item_page.item_url(ep.id, queue.pk, item_id))


def _page(request, ep, queue, item, own, form, at, status=200):
    version = labelling.version_for(item, own)
    try:
        window = item_page.read(ep, item, at)
    except HermesError as error:
        if error.code != "session_not_found":
            return error_page(request, error, ep)
        context = {"endpoint": ep, "queue": queue, "item": item}
        return render(request, "review/gone.html", context, status=404)
    if form is None:
        ids = item_page.shown_ids(item, window[4], rubrics.split(version)[1])
        form = labelling.LabelForm(version, ids, initial=labelling.initial_for(own))
    context = item_page.context(request, ep, queue, item, own, form, window)
    return render(request, "review/item.html", context, status=status)


@require_http_methods(["GET", "POST"])
@role_required(REVIEWER)
def review_item(request: HttpRequest, endpoint, queue_id, item_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    queue, item = _item(request, ep, queue_id, item_id)
    queues.require_work(request.user, queue)
    own = labelling.own_review(item, request.user)
    if request.method == "GET":
        items.hold(request.user, item)
        return _page(request, ep, queue, item, own, None, _at(request.GET))
    action = ActionForm(request.POST)
    if not action.is_valid():
        return bad_id(request, ep, "Press Save, Complete and next, or Skip.")
    if action.cleaned_data["action"] == "skip":
        return _skip(request, ep, queue, item)
    return _label(request, ep, queue, item, own, action.cleaned_data)


def _skip(request, ep, queue, item):
    if not items.skip(request.user, ep, item):
        reason = labelling.refusal(request.user, item)
        context = {"endpoint": ep, "queue": queue, "item": item, "reason": reason}
        return render(request, "review/refused.html", context, status=409)
    messages.info(request, "Item skipped.")
    return redirect("review_next", endpoint=ep.id, queue_id=queue.pk)


def _at(data):
    return params.whole(data.get("at", ""), signed=True)


def _label(request, ep, queue, item, own, action):
    try:
        ids = item_page.posted_ids(
            ep, item, params.wholes(request.POST.getlist("shown"), limit=2000)
        )
    except HermesError as error:
        return error_page(request, error, ep)
    version = labelling.version_for(item, own)
    form = labelling.LabelForm(version, ids, request.POST)
    if not form.is_valid():
        return _page(request, ep, queue, item, own, form, action["at"], status=400)
    complete = action["action"] == "complete"
    try:
        labelling.save(request.user, ep, queue, item, version, form, own, complete=complete)
    except labelling.Refused as refused:
        labelling.refused(request.user, ep, item, complete)
        context = {"endpoint": ep, "queue": queue, "item": item, "reason": str(refused)}
        return render(request, "review/refused.html", context, status=409)
    if complete:
        return redirect("review_next", endpoint=ep.id, queue_id=queue.pk)
    messages.success(request, "Labels saved (draft).")
    at = _at({"at": request.GET.get("go", "")})
    go = at if at is not None else action["at"]
    return redirect(item_page.item_url(ep.id, queue.pk, item.pk, go))


@require_POST
@role_required(ADMIN)
def review_authoritative(request: HttpRequest, endpoint, queue_id, item_id) -> HttpResponse:
    ep = get_endpoint(endpoint)
    queue, item = _item(request, ep, queue_id, item_id, ADMIN)
    review_id = _at({"at": request.POST.get("review", "")})
    review = get_object_or_404(Review, pk=review_id or 0, item=item, done=True)
    items.make_authoritative(request.user, ep, review)
    messages.success(request, f"The review by {review.reviewer_name} is now authoritative.")
    return redirect(item_page.item_url(ep.id, queue.pk, item.pk))
