"""Ending a person's dashboard sessions from outside them (offboarding, SCIM, IdP logout).

Sessions may live in the database or in Redis, so none is looked up by user:
each session remembers when it signed in (``SIGNED_IN_AT``), and a person's
``AccessEnd`` says before when no session of theirs counts. The middleware
below signs such a session out on its next request.
"""

from __future__ import annotations

from datetime import UTC, datetime

from django.conf import settings
from django.contrib.auth import logout
from django.contrib.auth.signals import user_logged_in
from django.dispatch import receiver
from django.shortcuts import redirect
from django.utils import timezone

from hermes_ui.access.models import AccessEnd
from hermes_ui.access.rules import forget
from hermes_ui.audit.models import Outcome
from hermes_ui.audit.trail import record
from hermes_ui.platform.prepared import Prepared

SIGNED_IN_AT = "hermes_signed_in_at"


def end_sessions(user, *, reason: str, by=None) -> None:
    """Every dashboard session of ``user`` that exists now is over at its next request."""
    AccessEnd.objects.update_or_create(user=user, defaults={"at": timezone.now()})
    forget(user)
    record(
        by,
        capability="access.sessions_ended",
        endpoint="",
        outcome=Outcome.SUCCESS,
        evidence={"person": user.get_username(), "ended_because": reason},
    )


@receiver(user_logged_in)
def _note_sign_in(sender, request, user, **kwargs):
    if request is not None and hasattr(request, "session"):
        request.session[SIGNED_IN_AT] = timezone.now().timestamp()


# Asked on every request: compiled once (platform.prepared).
_ENDS = Prepared(lambda user_id: AccessEnd.objects.filter(user=user_id).only("at"))


def ended(request) -> bool:
    """True when the request's session began before its person's access was ended."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or not hasattr(request, "session"):
        return False
    rows = _ENDS.instances(user.pk)
    if not rows:
        return False
    found = rows[0].at
    began = request.session.get(SIGNED_IN_AT)
    began_at = datetime.fromtimestamp(began, UTC) if isinstance(began, (int, float)) else None
    return began_at is None or began_at < found


class SessionEndMiddleware:
    """Signs out a session whose person's access was ended after it began."""

    def __init__(self, get_response):
        self.get_response = get_response

    # Answered without a session: health checks while the database (where sessions
    # live) is down, static files, SCIM's and the API's bearer secrets.
    OPEN_PATHS = ("/healthz", "/readyz", "/static/", "/scim/", "/api/")

    def __call__(self, request):
        # Before the role check: a person whose access ended (and whose grants went with
        # it) is signed out, not shown a 403 page in a session that should be over.
        if not request.path.startswith(self.OPEN_PATHS) and ended(request):
            logout(request)
            return redirect(settings.LOGIN_URL)
        return self.get_response(request)
