"""The page django-axes shows once a username from an address, or a whole address, is locked."""

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict | None = None,
) -> HttpResponse:
    context = {
        "username": (credentials or {}).get("username") or request.POST.get("username", ""),
        # Set by hermes_ui.web.login_limits when the address limit is what was reached.
        "address_locked": getattr(request, "hermes_address_locked", False),
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "address_failure_limit": settings.HERMES_UI_LOGIN_ADDRESS_FAILURE_LIMIT,
        "cooloff_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
    }
    return render(request, "registration/locked_out.html", context, status=429)
