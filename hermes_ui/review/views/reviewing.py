"""Working a queue: open the next item, label it (save, complete and next, skip), and an
admin's pick of the authoritative review."""

from django.contrib import messages
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from hermes_ui.endpoints import get_endpoint
from hermes_ui.hermes import HermesError
from hermes_ui.review import item_page, items, labelling, queues, rubrics
from hermes_ui.review.forms import ActionForm
from hermes_ui.review.models import Item, Review
from hermes_ui.web.failures import bad_id, error_page
from hermes_ui.web.roles import ADMIN, REVIEWER, role_required


def _item(ep, queue_id: int, item_id: int):
    queue = queues.get(ep, queue_id)
    try:
        return queue, queue.items.select_related("reserved_by").get(pk=item_id)
    except Item.DoesNotExist:
        raise Http404("No such item in this queue.") from None


def _version(item, user):
    own = labelling.own_review(item, user)
    return own.version if own else rubrics.current(item.queue.rubric)


@require_GET
@role_required(REVIEWER)
def review_next(request, endpoint, queue_id):
    ep = get_endpoint(endpoint)
    queue = queues.get(ep, queue_id)
    queues.require_work(request.user, queue)
    item = items.next_for(request.user, queue)
    if item is None:
        context = {"endpoint": ep, "queue": queue, "counts": queues.counts([queue.pk])[queue.pk]}
        return render(request, "review/done.html", context)
    return redirect(item_page.item_url(ep.id, queue.pk, item.pk))


def _page(request, ep, queue, item, version, form, at, status=200):
    try:
        window = item_page.read(ep, item, at)
    except HermesError as error:
        if error.code != "session_not_found":
            return error_page(request, error, ep)
        context = {"endpoint": ep, "queue": queue, "item": item}
        return render(request, "review/gone.html", context, status=404)
    if form is None:
        ids = item_page.shown_ids(item, window[4], rubrics.split(version)[1])
        own = labelling.own_review(item, request.user)
        form = labelling.LabelForm(version, ids, initial=labelling.initial_for(own))
    context = item_page.context(request, ep, queue, item, version, form, window)
    return render(request, "review/item.html", context, status=status)


@require_http_methods(["GET", "POST"])
@role_required(REVIEWER)
def review_item(request, endpoint, queue_id, item_id):
    ep = get_endpoint(endpoint)
    queue, item = _item(ep, queue_id, item_id)
    queues.require_work(request.user, queue)
    version = _version(item, request.user)
    if request.method == "GET":
        items.reserve(request.user, item.pk)
        item.refresh_from_db()
        return _page(request, ep, queue, item, version, None, _at(request.GET))
    action = ActionForm(request.POST)
    if not action.is_valid():
        return bad_id(request, ep, "Press Save, Complete and next, or Skip.")
    if action.cleaned_data["action"] == "skip":
        items.skip(request.user, ep, item)
        messages.info(request, "Item skipped.")
        return redirect("review_next", endpoint=ep.id, queue_id=queue.pk)
    return _label(request, ep, queue, item, version, action.cleaned_data)


def _at(data):
    value = data.get("at", "")
    return int(value) if value.lstrip("-").isdigit() else None


def _label(request, ep, queue, item, version, action):
    ids = [int(v) for v in request.POST.getlist("shown") if v.isdigit()][:2000]
    if item.message_id is not None:
        ids = [i for i in ids if i == item.message_id]
    form = labelling.LabelForm(version, ids, request.POST)
    try:
        labelling.check_can_save(request.user, item, labelling.own_review(item, request.user))
    except labelling.Refused as refused:
        context = {"endpoint": ep, "queue": queue, "item": item, "reason": str(refused)}
        return render(request, "review/refused.html", context, status=409)
    if not form.is_valid():
        return _page(request, ep, queue, item, version, form, action["at"], status=400)
    complete = action["action"] == "complete"
    labelling.save(request.user, ep, queue, item, version, form, complete=complete)
    if complete:
        return redirect("review_next", endpoint=ep.id, queue_id=queue.pk)
    messages.success(request, "Labels saved (draft).")
    at = _at({"at": request.GET.get("go", "")})
    return redirect(
        item_page.item_url(ep.id, queue.pk, item.pk, at if at is not None else action["at"])
    )


@require_POST
@role_required(ADMIN)
def review_authoritative(request, endpoint, queue_id, item_id):
    ep = get_endpoint(endpoint)
    queue, item = _item(ep, queue_id, item_id)
    review_id = _at({"at": request.POST.get("review", "")})
    review = get_object_or_404(Review, pk=review_id or 0, item=item, done=True)
    items.make_authoritative(request.user, ep, review)
    messages.success(request, f"The review by {review.reviewer_name} is now authoritative.")
    return redirect(item_page.item_url(ep.id, queue.pk, item.pk))
