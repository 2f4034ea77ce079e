"""Typed failures of Hermes operations.

Every failure carries the provider's error code (or a local one), the HTTP
status when there was a response, and an *outcome*: ``rejected`` means the
provider definitively refused and nothing changed because of this request,
``uncertain`` means a mutation may or may not have happened and must be
reconciled by reading state, never blindly retried.
"""

from enum import StrEnum


class Outcome(StrEnum):
    REJECTED = "rejected"
    UNCERTAIN = "uncertain"


# What a person should do next, keyed by the provider's error code. The
# wording follows the contract's "Handle provider failures" table.
ADVICE = {
    "invalid_session_id": "Correct the session id; after a fork, inspect state first.",
    "invalid_title": "Choose a valid, unique title of at most 100 characters.",
    "unsupported_session_field": "Only the title and the close reason can be changed.",
    "missing_message": "Type a message (or add an image) before sending.",
    "invalid_api_key": (
        "The dashboard's API key for this endpoint is missing or wrong. "
        "An operator must fix HERMES_API_KEY; retrying will not help."
    ),
    "session_key_forbidden": (
        "This Hermes server has no API key configured, so it refuses a memory scope "
        "(session key). Configure authenticated access or leave the memory scope empty."
    ),
    "session_not_found": (
        "No session with this id exists on this endpoint. It may have been deleted, "
        "or it lives on another endpoint."
    ),
    "session_exists": "A session with that id already exists. Open it before choosing another id.",
    "body_too_large": "The request is larger than 10,000,000 bytes. Reduce the input.",
    "session_db_unavailable": (
        "Hermes cannot open its session database. Restore its storage, then check the "
        "state of anything you changed before trying again."
    ),
    "rate_limited": "Hermes is rate limiting requests. Wait a moment.",
    "server_error": "Hermes failed while handling the request.",
    "timeout": "Hermes did not answer in time.",
    "transport": "The dashboard could not reach Hermes. Is the server running?",
    "malformed_response": "Hermes answered with something that is not the expected JSON.",
    "invalid_input": "The input was refused before anything was sent to Hermes.",
    "session_unrouted": (
        "Hermes answered this session's address with a plain 404 instead of its session "
        "API: the id cannot be routed, or the server has no session API (the endpoints "
        "page says which)."
    ),
    "rate_limit_exceeded": "Hermes runs as many turns at once as it allows; try again shortly.",
    "chat_queued": "Open the session later to see whether the queued turn ran.",
    "session_active_turn": "A turn is running in this session; try again once it has ended.",
    "incomplete_transcript": (
        "Hermes sends long transcripts in pages and one of them failed. Nothing was "
        "shown, saved or exported as the whole transcript; try again in a moment."
    ),
    "endpoint_unresponsive": (
        "The dashboard stopped waiting for this Hermes after repeated timeouts and tries it "
        "again every few seconds. Pages of other endpoints are not affected."
    ),
    "endpoint_busy": (
        "Too many pages are waiting on this Hermes at once. Try again in a moment; "
        "pages of other endpoints are not affected."
    ),
}


class HermesError(Exception):
    """A failed Hermes operation. ``message`` is safe to show to the user who asked."""

    def __init__(
        self,
        message: str,
        *,
        code: str,
        operation: str,
        outcome: Outcome = Outcome.REJECTED,
        status: int | None = None,
        provider_message: str | None = None,
    ):
        super().__init__(message)
        self.message = message
        self.code = code
        self.operation = operation
        self.outcome = outcome
        self.status = status
        # The provider's own words. They can quote titles or ids, so they are
        # shown to the user but never written to logs.
        self.provider_message = provider_message
        # Seconds the provider asked us to wait before trying again (429/503).
        self.retry_after: float | None = None

    @property
    def uncertain(self) -> bool:
        return self.outcome is Outcome.UNCERTAIN

    @property
    def advice(self) -> str:
        return ADVICE.get(self.code, "")

    def __repr__(self) -> str:
        # Deliberately omits the messages: reprs end up in logs and tracebacks.
        return (
            f"{type(self).__name__}(code={self.code!r}, operation={self.operation!r}, "
            f"status={self.status!r}, outcome={self.outcome.value!r})"
        )


class InvalidInput(HermesError):
    """Refused locally, before any request was made."""


class BadRequest(HermesError):
    pass


class Unauthorized(HermesError):
    pass


class Forbidden(HermesError):
    pass


class NotFound(HermesError):
    pass


class Conflict(HermesError):
    pass


class NoSessionApi(HermesError):
    """The server has no session routes at all: ``/api/sessions`` answers a plain
    ``404: Not Found`` (hermes-agent before 0.15), where a session API answers 404 in
    JSON with a code. Not ``NotFound``: no session is missing, the API is."""


class Unrouted(HermesError):
    """One session's route answered a plain ``404: Not Found`` (no session API error).

    That request's failure only, never a verdict on the endpoint: any caller can
    choose the id, and whether the endpoint has a session API is the probe's to
    say. Not ``NotFound`` either: nothing proves that the session is gone.
    """


class PayloadTooLarge(HermesError):
    pass


class RateLimited(HermesError):
    pass


class Unavailable(HermesError):
    pass


class ServerError(HermesError):
    pass


class TransportFailure(HermesError):
    pass


class Timeout(HermesError):
    pass


class MalformedResponse(HermesError):
    pass


class Queued(HermesError):
    """A newer Hermes accepted a chat turn for later (202 ``hermes.session.chat.queued``)."""


class Unresponsive(HermesError):
    """Not sent: the endpoint's breaker is open after repeated timeouts."""


class Busy(HermesError):
    """Not sent: this worker already has its share of calls in flight to the endpoint."""


STATUS_CLASSES = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    429: RateLimited,
    503: Unavailable,
}
