"""Hermes failures, and requests naming no valid session, as pages with a fitting
HTTP status, never a 500."""

from django.shortcuts import render

from hermes_ui.hermes import errors as e
from hermes_ui.web.errors import whole_page
from hermes_ui.web.signals import failure_shown

# The status the dashboard answers with when a Hermes read fails.
_STATUS = {
    "session_not_found": 404,
    "invalid_session_id": 400,
    "invalid_input": 400,
    "body_too_large": 413,
    "session_db_unavailable": 503,
    "rate_limited": 503,
    "timeout": 504,
    "endpoint_unresponsive": 503,
    "endpoint_busy": 503,
    "no_session_api": 503,
    "session_unrouted": 404,
}

_TITLES = {
    "session_not_found": "Session not found",
    "invalid_api_key": "Hermes refused the dashboard's credentials",
    "session_db_unavailable": "Hermes cannot open its session database",
    "timeout": "Hermes is not answering",
    "transport": "Hermes is unreachable",
    "malformed_response": "Hermes sent an unexpected answer",
    "rate_limited": "Hermes is busy",
    "endpoint_unresponsive": "Hermes is not answering",
    "endpoint_busy": "Hermes is busy",
    "no_session_api": "Hermes has no session API",
    "session_unrouted": "Hermes did not route this session",
    "incomplete_transcript": "Hermes answered only part of the transcript",
}


def status_for(error: e.HermesError) -> int:
    if isinstance(error, e.InvalidInput):
        return 413 if error.code == "body_too_large" else 400
    return _STATUS.get(error.code, 502)


def title_for(error: e.HermesError) -> str:
    return _TITLES.get(error.code, "Hermes could not complete the request")


def error_context(error: e.HermesError, endpoint=None) -> dict:
    context: dict[str, object] = {
        "error": error,
        "error_title": title_for(error),
        "error_status": status_for(error),
        "endpoint": endpoint,
    }
    if endpoint is not None:
        for _, extra in failure_shown.send(sender=None, error=error, endpoint=endpoint):
            context.update(extra or {})  # type: ignore[arg-type]
    return context


def bad_id(request, endpoint, reason: str):
    """The 400 page of a request whose session id (or another parameter) is not valid."""
    context = {"endpoint": endpoint, "reason": reason}
    return render(request, "sessions/bad_id.html", context, status=400)


# Failures that pass by themselves: the answer says when to ask again.
_PASSING = {"rate_limited", "session_db_unavailable", "endpoint_unresponsive", "endpoint_busy"}
_RETRY_SECONDS = {"no_session_api": "300"}  # an upgrade, not a passing failure


def retry_after(response, error: e.HermesError):
    """``Retry-After`` on the answer to a failure that passes by itself."""
    if error.code in _PASSING:
        response["Retry-After"] = "5"
    elif error.code in _RETRY_SECONDS:
        response["Retry-After"] = _RETRY_SECONDS[error.code]
    return response


def error_page(request, error: e.HermesError, endpoint=None, template="hermes_error.html"):
    context = error_context(error, endpoint)
    response = render(request, template, context, status=context["error_status"])
    return whole_page(request, retry_after(response, error))
