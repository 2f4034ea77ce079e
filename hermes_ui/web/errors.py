"""Error pages that never echo request data, transcript text or tracebacks."""

from django.contrib.auth.decorators import login_not_required
from django.shortcuts import render


def forbidden(request, exception=None):
    reason = str(exception) if exception and str(exception).startswith("This needs") else ""
    return render(request, "errors/403.html", {"reason": reason}, status=403)


@login_not_required
def not_found(request, exception=None):
    reason = str(exception) if exception and str(exception).startswith("No Hermes") else ""
    return render(request, "errors/404.html", {"reason": reason}, status=404)


@login_not_required
def server_error(request):
    return render(request, "errors/500.html", status=500)
