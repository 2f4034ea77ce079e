"""Archive, restore, pin and unpin one session: PATCH ``archived`` or ``pinned``."""

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from hermes_ui.audit.models import Outcome
from hermes_ui.changes import apply, flags
from hermes_ui.changes.forms import KeyedForm
from hermes_ui.changes.outcome_page import render_outcome
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.platform.endpoints import get_endpoint
from hermes_ui.web import links
from hermes_ui.web.roles import SUPPORT, role_required


class FlagForm(KeyedForm):
    flag = forms.ChoiceField(choices=[(name, op.label) for name, op in flags.OPS.items()])


@require_POST
@role_required(SUPPORT)
def session_flag(request: HttpRequest, endpoint, session_id) -> HttpResponse:
    """One button's POST; back to the session page with what happened (no JS needed)."""
    ep = get_endpoint(endpoint)
    back = redirect(links.session_url(ep.id, session_id))
    form = FlagForm(request.POST)
    if not form.is_valid():
        messages.error(request, "This button's form was incomplete; reload the page and try again.")
        return back
    if flags.refused_here(ep) and not _upgraded(ep, session_id):
        messages.error(request, flags.NEEDS + " Nothing was sent.")
        return back
    name = form.cleaned_data["flag"]
    op = flags.OPS[name]
    applied = apply.attempt(
        apply.PATCH,
        ep,
        request.user,
        form_key=form.cleaned_data["key"],
        inputs={"op": name, op.field: op.value},
        session_id=session_id,
        call=lambda key, evidence: client_for(ep).patch_session(
            session_id, idempotency_key=key, **{op.field: op.value}
        ),
    )
    flags.learn(ep, applied, session_id)
    if applied.outcome == Outcome.SUCCESS:
        replay = "This button was already pressed. " if applied.replayed else ""
        messages.success(request, replay + op.done)
    elif applied.result.error_code == flags.UNSUPPORTED:
        messages.error(request, flags.NEEDS + " Nothing was changed.")
    elif applied.outcome in {Outcome.REJECTED, Outcome.REFUSED}:
        messages.error(request, applied.provider_message or applied.result.message)
    else:
        return render_outcome(
            request, ep, applied.result.event_id, status=apply.status_for(applied)
        )
    return back


def _upgraded(ep, session_id: str) -> bool:
    """Whether the session now reports ``archived``: Hermes was upgraded since it refused."""
    try:
        return not flags.refused_here(ep, client_for(ep).get_session(session_id))
    except HermesError:
        return False
