"""The deletion queue: admins see the requests where they are admin, everyone else their
own; it refreshes live."""

from django.db.models import Count
from django.http import HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from django.views.decorators.vary import vary_on_headers

from hermes_ui.access.rules import access_of
from hermes_ui.deletion import clock, policy
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.web.htmx import HtmxHttpRequest
from hermes_ui.web.roles import SUPPORT, role_required

QUEUE_LIMIT = 200
POLL_SECONDS = 4


@require_GET
@vary_on_headers("HX-Request")
@role_required(SUPPORT)
def deletion_queue(request: HtmxHttpRequest) -> HttpResponse:
    policy.expire_due()
    admin = policy.is_admin(request.user)
    # Admins see the requests of the endpoints (and sources) where they are admin,
    # everyone their own of sessions they still see: the one rule (access.rules).
    visible = DeletionRequest.objects.filter(policy.visible_q(request.user))
    counts = dict(visible.values_list("status").annotate(n=Count("id")).order_by())
    status = request.GET.get("status", "")
    bad_status = bool(status) and status not in Status.values
    shown = visible.filter(status=status) if status and not bad_status else visible
    rows = [] if bad_status else list(shown[:QUEUE_LIMIT])
    for row in rows:
        row.admin_here = admin and policy.is_admin(request.user, row)  # type: ignore[attr-defined]
    context = {
        "admin": admin,
        "everywhere": access_of(request.user).instance_admin,
        "rows": rows,
        "limit": QUEUE_LIMIT,
        "status": status,
        "bad_status": bad_status,
        "tabs": [(value, label, counts.get(value, 0)) for value, label in Status.choices],
        "total": sum(counts.values()),
        "now": clock.now(),
        "poll_seconds": POLL_SECONDS,
    }
    template = "deletion/queue.html#queue" if request.htmx else "deletion/queue.html"
    return render(request, template, context, status=400 if bad_status else 200)
