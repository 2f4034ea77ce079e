"""Rendering the outcome of one change, and "check what happened": reading the state now.

Every change the dashboard attempts has an audit event; its page shows the
recorded outcome (fresh or replayed) and, for a fork or on request, a
reconcile panel built from reads of the current state. Nothing here
writes to Hermes. An outcome is shown to the person who made the change and
to admins. A GET writes nothing at all: a fork child found by a check is
remembered only on a POST (the change itself, or "Check what happened").
"""

from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django_htmx.http import HttpResponseClientRedirect

from hermes_ui.access import rows as seen
from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.changes import apply, reconcile
from hermes_ui.hermes import HermesError, client_for
from hermes_ui.hermes.errors import ADVICE
from hermes_ui.index.forks import remember_fork
from hermes_ui.web import links
from hermes_ui.web.roles import ADMIN, REVIEWER, SUPPORT, has_role, require_role

ROLE_FOR = {apply.CREATE: REVIEWER, apply.FORK: REVIEWER, apply.PATCH: SUPPORT}
TEMPLATE = "changes/outcome.html"


def respond(request, ep, applied: apply.Applied):
    """Answer a change: its outcome page, redirected to on success (and for htmx),
    rendered in place with a fitting status when it failed."""
    event_id = applied.result.event_id
    url = reverse("change_outcome", kwargs={"endpoint": ep.id, "event_id": event_id})
    if request.htmx:
        if applied.outcome not in {Outcome.SUCCESS, Outcome.REFUSED}:
            # The outcome page is a GET, which records nothing: a half-done
            # fork's child is looked for and remembered here, in the POST.
            event = get_object_or_404(AuditEvent, pk=event_id, **ep.scope())
            if event.capability == apply.FORK:
                _remember_child(ep, event, report_of(client_for(ep), event))
        return HttpResponseClientRedirect(url)
    if applied.outcome == Outcome.SUCCESS:
        return redirect(url)
    status = apply.status_for(applied)
    return render_outcome(request, ep, event_id, applied=applied, status=status, record=True)


def render_outcome(request, ep, event_id, *, status=200, applied=None, check=False, record=False):
    """The outcome page; ``record`` (POSTs only) remembers a fork child the check finds."""
    event = get_object_or_404(AuditEvent, pk=event_id, **ep.scope(), capability__in=ROLE_FOR)
    require_viewer(request.user, event)
    client = client_for(ep)
    uncertain = event.outcome in {Outcome.UNCERTAIN, Outcome.RUNNING}
    fork = event.capability == apply.FORK
    report = created = read_error = None
    if check or (fork and event.outcome != Outcome.REFUSED):
        report = report_of(client, event)
        if record:
            _remember_child(ep, event, report)
    elif event.capability == apply.CREATE and event.outcome == Outcome.SUCCESS:
        try:
            created = client.get_session(event.session_id)
        except HermesError as error:
            read_error = error
    context = {
        **_describe(event),
        "endpoint": ep,
        "event": event,
        "evidence": event.evidence,
        "applied": applied,
        "advice": ADVICE.get(event.error_code, ""),
        "uncertain": uncertain,
        "report": report,
        "created": created,
        "read_error": read_error,
        "session_link": links.session_url(ep.id, event.session_id) if event.session_id else "",
    }
    template = f"{TEMPLATE}#panel" if check and request.htmx else TEMPLATE
    return render(request, template, context, status=status)


def require_viewer(user, event: AuditEvent) -> None:
    """The change's own actor (with the capability's role) or an admin, on its endpoint;
    a change of a session the person may not see is as missing (the one rule)."""
    if event.session_id and not seen.may_see(user, event.endpoint, event.session_id):
        raise Http404("No such change on this endpoint.")
    require_role(user, ROLE_FOR[event.capability], event.endpoint)
    admin = has_role(user, ADMIN, event.endpoint)
    if not admin and (event.user_id is None or event.user_id != user.pk):
        raise PermissionDenied("Only the person who made this change, or an admin, may see it.")


def _remember_child(ep, event: AuditEvent, report: reconcile.Report) -> None:
    if event.capability == apply.FORK and report.child_created:
        # Every fork the dashboard made is remembered, even a half-done one,
        # under the person who made it (not whoever checked).
        remember_fork(ep, event.session_id, report.child.id, event.user)  # type: ignore[union-attr]


def report_of(client, event: AuditEvent) -> reconcile.Report:
    if event.capability == apply.FORK:
        return reconcile.reconcile_fork(client, event.session_id, event.evidence)
    if event.capability == apply.PATCH:
        return reconcile.check_patch(client, event.session_id, event.evidence)
    return reconcile.check_create(client, event.evidence)


_HEADINGS = {
    apply.CREATE: ("Session created", "Hermes refused to create the session"),
    apply.PATCH: ("Change saved", "Hermes refused the change"),
    apply.FORK: ("Forked", "The fork failed"),
}


def _describe(event: AuditEvent) -> dict:
    done, refused = _HEADINGS[event.capability]
    if event.outcome == Outcome.SUCCESS:
        return {"heading": done, "tone": "ok", "summary": apply.SUCCESS_WORDS[event.capability]}
    if event.outcome in {Outcome.UNCERTAIN, Outcome.RUNNING}:
        return {"heading": "Outcome uncertain", "tone": "warn", "summary": apply.UNCERTAIN_WORDS}
    if event.outcome == Outcome.REFUSED:
        return {
            "heading": "Nothing was sent",
            "tone": "error",
            "summary": "The dashboard did not send this change to Hermes.",
        }
    summary = f"Hermes answered HTTP {event.http_status or '?'} ({event.error_code})."
    if event.capability == apply.FORK:
        summary += " A fork can fail after changing things; see what happened below."
    return {"heading": refused, "tone": "error", "summary": summary}
