"""Every failure of the API as JSON: a stable ``code`` and a human ``message``.

Nothing a client sends becomes a 500 or a traceback: bad parameters are 400s
(``bad_request``), refusals 401/403, missing things 404, Hermes failures the
status the pages answer with (``web.failures.status_for``), with Hermes' code; the
dashboard's own database out of reach a 503 to retry, as for the pages.
"""

from __future__ import annotations

import logging

from django.core.exceptions import PermissionDenied, RequestDataTooBig, SuspiciousOperation
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from ninja.errors import AuthenticationError, HttpError
from ninja.errors import ValidationError as NinjaValidationError

from hermes_ui.hermes import HermesError
from hermes_ui.hermes.ids import IdError
from hermes_ui.platform.outages import DATABASE, database_unreachable
from hermes_ui.web.failures import retry_after, status_for, title_for

log = logging.getLogger("hermes_ui.api")


class ApiError(Exception):
    def __init__(self, status: int, code: str, message: str, *, headers: dict | None = None):
        super().__init__(message)
        self.status, self.code, self.message = status, code, message
        self.headers = headers or {}


@csrf_exempt
def not_found(request, rest: str = ""):
    """Any other path under /api/v1/: a JSON 404 rather than the dashboard's page (for a
    POST too: no CSRF check, whose refusal would be an HTML 403 in a JSON API)."""
    body = {"code": "not_found", "message": "No such API route; see /api/v1/docs."}
    return JsonResponse(body, status=404)


def bad_request(message: str, code: str = "bad_request") -> ApiError:
    return ApiError(400, code, message)


def _answer(api, request, status: int, code: str, message: str, **more):
    return api.create_response(request, {"code": code, "message": message, **more}, status=status)


def install(api) -> None:
    """Register the handlers on ``api`` (a NinjaAPI)."""

    @api.exception_handler(ApiError)
    def _api_error(request, exc: ApiError):
        response = _answer(api, request, exc.status, exc.code, exc.message)
        for name, value in exc.headers.items():
            response[name] = value
        return response

    @api.exception_handler(AuthenticationError)
    def _unauthenticated(request, exc):
        response = _answer(
            api,
            request,
            401,
            "unauthorized",
            "Send a valid, unexpired API token: Authorization: Bearer <token>.",
        )
        response["WWW-Authenticate"] = 'Bearer realm="hermes-ui"'
        return response

    @api.exception_handler(HttpError)
    def _http(request, exc: HttpError):
        status = exc.status_code
        code = {400: "bad_request", 405: "method_not_allowed"}.get(status, f"http_{status}")
        message = (
            "The request body is not JSON of the expected shape." if status == 400 else str(exc)
        )
        return _answer(api, request, status, code, message)

    @api.exception_handler(PermissionDenied)
    def _forbidden(request, exc):
        return _answer(api, request, 403, "forbidden", str(exc) or "Your role may not do this.")

    @api.exception_handler(Http404)
    def _not_found(request, exc):
        return _answer(api, request, 404, "not_found", str(exc) or "Not found.")

    @api.exception_handler(SuspiciousOperation)
    def _suspicious(request, exc):
        if isinstance(exc, RequestDataTooBig):
            return _answer(api, request, 413, "too_large", "The request body is too large.")
        return _answer(api, request, 400, "bad_request", "The request is not valid.")

    @api.exception_handler(IdError)
    def _bad_id(request, exc):
        return _answer(api, request, 400, "invalid_session_id", str(exc))

    @api.exception_handler(NinjaValidationError)
    def _invalid(request, exc):
        problems = [
            {"where": ".".join(str(p) for p in error.get("loc", ())), "message": error.get("msg")}
            for error in exc.errors
        ]
        return _answer(
            api, request, 400, "bad_request", "Some parameters are not valid.", errors=problems
        )

    @api.exception_handler(HermesError)
    def _hermes(request, exc: HermesError):
        response = _answer(
            api, request, status_for(exc), exc.code or "hermes_error", title_for(exc)
        )
        return retry_after(response, exc)

    @api.exception_handler(Exception)
    def _bug(request, exc):
        if database_unreachable(exc):  # as the pages answer it: a 503 to retry, no bug
            DATABASE.failed(exc, "an API request")
            response = _answer(
                api, request, 503, "database_unavailable", "The dashboard's database is busy."
            )
            response["Retry-After"] = "5"
            return response
        # The type only: a message may carry transcript text.
        log.error("api error type=%s path=%s", type(exc).__name__, request.path_info)
        return _answer(api, request, 500, "server_error", "The dashboard failed; it is logged.")
