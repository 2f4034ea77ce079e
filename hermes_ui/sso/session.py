"""After a single sign-on: the audit event, and what logout at the provider will need."""

from allauth.account.signals import user_logged_in
from django.conf import settings
from django.dispatch import receiver
from django.utils import timezone

from hermes_ui.access.rules import access_of
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.sso import groups as idp_groups
from hermes_ui.sso.models import SsoCheck

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
    # The provider vouched for them now: the revalidation round counts from here.
    SsoCheck.objects.update_or_create(
        user=user,
        defaults={
            "checked_at": timezone.now(),
            "tried_at": None,
            "failures": 0,
            "sid": getattr(request, "hermes_oidc_sid", ""),
        },
    )
    access = access_of(user)
    record(
        user,
        capability="auth.sso_login",
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={
            "subject": sociallogin.account.uid,
            "role": access.highest() or "",
            "groups": idp_groups.meaningful(getattr(sociallogin, "hermes_groups", [])),
            "grants": idp_groups.labels(access),
            "issuer": settings.HERMES_UI_OIDC.issuer,
        },
    )
