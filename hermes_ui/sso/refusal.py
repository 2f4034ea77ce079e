"""Refusing a sign-in: the page that says why, and the audit event (``auth.sso_refused``)."""

from allauth.core.exceptions import ImmediateHttpResponse
from django.conf import settings
from django.shortcuts import render

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record

# What the person is told, by reason; the reason itself is what the audit trail keeps.
REASONS = {
    "no_role": "Your account at {provider} is in none of the groups that give access to "
    "this dashboard. Ask an administrator to add you to one.",
    "inactive": "This dashboard account has been disabled. Ask an administrator.",
    "link_only": "Identities are linked to dashboard accounts by an administrator, "
    "not from a sign-in.",
    "unreachable": "{provider} could not be reached, or did not answer as configured. "
    "Try again in a minute; if it goes on, tell an administrator.",
    "failed": "The sign-in with {provider} could not be completed. "
    "Start again from the login page.",
}


def audit_refusal(request, reason: str, *, subject: str = "", user=None, detail: str = "") -> None:
    record(
        user,
        capability="auth.sso_refused",
        endpoint="",
        outcome=Outcome.REFUSED,
        error_code=reason,
        evidence={
            "subject": subject,
            "issuer": settings.HERMES_UI_OIDC.issuer if settings.HERMES_UI_OIDC else "",
            "code": detail[:60],
        },
    )


def refusal_page(request, reason: str, status: int = 403, *, existing: bool = False):
    config = settings.HERMES_UI_OIDC
    provider = config.name if config else "the identity provider"
    context = {
        "message": REASONS[reason].format(provider=provider),
        "reason": reason,
        "existing": existing,
    }
    return render(request, "sso/refused.html", context, status=status)


def refuse(request, reason: str, *, subject: str = "", user=None, detail: str = ""):
    """Audit the refusal and stop allauth's flow with the page."""
    audit_refusal(request, reason, subject=subject, user=user, detail=detail)
    raise ImmediateHttpResponse(refusal_page(request, reason, existing=user is not None))
