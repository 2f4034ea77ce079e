"""The page django-axes shows once a username and address are locked out."""

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
        "failure_limit": settings.AXES_FAILURE_LIMIT,
        "cooloff_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
    }
    return render(request, "registration/locked_out.html", context, status=429)
