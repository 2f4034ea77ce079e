"""After a single sign-on: the audit event, and what logout at the provider will need."""

from allauth.account.signals import user_logged_in
from django.conf import settings
from django.dispatch import receiver

from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record

LOGOUT_KEY = "hermes_oidc_logout"


@receiver(user_logged_in)
def on_sso_login(sender, request, user, sociallogin=None, **kwargs):
    if sociallogin is None:
        return
    logout = getattr(request, "hermes_oidc_logout", None)
    if logout:
        # The raw ID token is the logout's id_token_hint; it stays in this
        # session only (server side), never in a log or the audit trail.
        request.session[LOGOUT_KEY] = logout
    record(
        user,
        capability="auth.sso_login",
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={
            "subject": sociallogin.account.uid,
            "role": getattr(sociallogin, "hermes_role", ""),
            "issuer": settings.HERMES_UI_OIDC.issuer,
        },
    )
