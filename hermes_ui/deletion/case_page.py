"""Rendering one deletion request: snapshot, consequences, approval, execution and result."""

from __future__ import annotations

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, render

from hermes_ui.deletion import clock, leftovers, policy, snapshot
from hermes_ui.deletion.forms import DecisionForm
from hermes_ui.deletion.models import DeletionRequest, Status
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes import errors as e
from hermes_ui.observed import facts
from hermes_ui.platform.endpoints import configured
from hermes_ui.web.failures import error_context


def case_or_403(request, pk: int) -> DeletionRequest:
    """The case, if this person may open it: 404 for a session they may not see at all
    (as for a case that does not exist), 403 for one they see but may not open."""
    case = get_object_or_404(DeletionRequest, pk=pk)
    if not policy.sees(case, request.user):
        raise Http404("No such deletion request.")
    if not policy.may_view(case, request.user):
        raise PermissionDenied("This needs the admin role, or to be the requester.")
    policy.expire_if_due(case)
    return case


def _live(case: DeletionRequest, ep) -> dict:
    """The session as it is now, compared with the snapshot (open requests only)."""
    if ep is None or case.status not in (Status.PENDING, Status.APPROVED):
        return {}
    client = client_for(ep)
    try:
        session, current = snapshot.read(client, case.session_id)
    except e.NotFound:
        return {"live_gone": True}
    except HermesError as error:
        return {"live_error": error_context(error, ep)}
    return {"live_session": session, "live_changes": snapshot.differences(case.snapshot, current)}


def render_case(request, case: DeletionRequest, *, status: int = 200, **extra):
    """The case page, or its ``#case`` block for htmx, answered with ``status``."""
    user = request.user
    admin = policy.is_admin(user, case)
    now = clock.now()
    # An endpoint the operator has since removed, or pointed at another Hermes,
    # still shows its record, without links and without reading the other server.
    ep = configured(case.endpoint, case.endpoint_fp)
    left = leftovers.items(case) if case.incomplete else []
    context = {
        "case": case,
        "endpoint": ep,
        "is_requester": policy.is_requester(case, user),
        "can_approve": case.batch_id is None and policy.approval_refusal(case, user) is None,
        "can_execute": admin and case.status == Status.APPROVED,
        "can_check": admin and case.status == Status.UNCERTAIN,
        "can_withdraw": (admin or policy.is_requester(case, user))
        and case.status in (Status.PENDING, Status.APPROVED),
        "seconds_left": int((case.expires_at - now).total_seconds())
        if case.status == Status.APPROVED and case.expires_at
        else None,
        "form": extra.pop("form", None) or DecisionForm(),
        "cascade_warning": facts.cascade_seen_failing(ep),
        "leftovers": left,
        "hidden_ids": policy.hidden_ids(user, case, left),
        "can_follow_up": case.incomplete and ep is not None and policy.may_view(case, user),
        **_live(case, ep),
        **extra,
    }
    template = "deletion/detail.html#case" if request.htmx else "deletion/detail.html"
    return render(request, template, context, status=status)
