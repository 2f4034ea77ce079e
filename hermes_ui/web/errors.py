"""Error pages that never echo request data, transcript text or tracebacks."""

from django.contrib.auth.decorators import login_not_required
from django.shortcuts import render


def whole_page(request, response):
    """An error page answering an htmx request takes the main area, as it would without JS.

    htmx swaps error answers (``responseHandling`` in base.html); a whole page
    swapped into a region would nest a second top bar inside it.
    """
    if getattr(request, "htmx", False):
        response["HX-Retarget"] = "#main"
        response["HX-Reselect"] = "#main"
        response["HX-Reswap"] = "outerHTML"
    return response


def forbidden(request, exception=None):
    reason = str(exception) if exception and str(exception).startswith("This needs") else ""
    return whole_page(request, render(request, "errors/403.html", {"reason": reason}, status=403))


def too_many(request, reason: str, retry_after: int | None = None):
    """429: a limit on work running at once; ``reason`` says which and what to do."""
    response = render(request, "errors/429.html", {"reason": reason}, status=429)
    if retry_after is not None:
        response["Retry-After"] = str(retry_after)
    return whole_page(request, response)


def unavailable(request, reason: str, retry_after: int = 5):
    """503: a dependency of the dashboard (not Hermes) does not answer; ``reason`` says which."""
    response = render(request, "errors/503.html", {"reason": reason}, status=503)
    response["Retry-After"] = str(retry_after)
    return whole_page(request, response)


@login_not_required
def not_found(request, exception=None):
    hermes_answer = getattr(exception, "as_hermes_error", None)
    if hermes_answer is not None:
        # A session the person may not see (hermes_ui.access.scope): Hermes' own
        # "not found" page, the answer for a session that does not exist.
        from django.conf import settings

        from hermes_ui.web.failures import error_page

        endpoint = settings.HERMES_ENDPOINTS.get(getattr(exception, "endpoint", ""))
        return error_page(request, hermes_answer(), endpoint)
    reason = str(exception) if exception and str(exception).startswith("No Hermes") else ""
    return whole_page(request, render(request, "errors/404.html", {"reason": reason}, status=404))


@login_not_required
def server_error(request):
    from hermes_ui.web import database

    if database.current_exception_is_outage():
        return database.outage_response(request)
    return render(request, "errors/500.html", status=500)
