"""The Hermes sessions client: the only code that speaks HTTP to Hermes.

One ``HermesClient`` per endpoint covers the nine ``/api/sessions``
operations. Reads (list, get, messages) may be retried; mutations (create,
patch, fork, delete, chat) are sent exactly once, and a transport failure,
timeout, 429 or 5xx on one of them is reported as an *uncertain* outcome for
the caller to reconcile.
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
from collections.abc import AsyncIterator
from contextlib import contextmanager, nullcontext
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
import orjson
import tenacity
from django.conf import settings
from django.utils import timezone

from hermes_ui.hermes import breaker, bulkhead, deadline, messages, wire
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.breaker import breaker_for
from hermes_ui.hermes.ids import IdError, check_new_id, check_path_id, encode_path_id
from hermes_ui.hermes.session import Session
from hermes_ui.hermes.sse import SseEvent, SseParser
from hermes_ui.platform import metrics, outages, tracing
from hermes_ui.platform.endpoints import Endpoint

log = logging.getLogger("hermes_ui.hermes")

MAX_BODY_BYTES = 10_000_000
MAX_LIST_LIMIT = 200
MAX_TEXT_CHARS = 65_536
MAX_CONTENT_PARTS = 1_000
UNSET: Any = object()
_RETRYABLE_STATUS = {429, 502, 503, 504}

# Tests (and the fault-injection benchmarks) swap the transport for every
# client created while the override is active.
_override = threading.local()


@contextmanager
def use_transport(sync: httpx.BaseTransport | None = None, async_: Any = None):
    previous = getattr(_override, "pair", None)
    _override.pair = (sync, async_)
    _CLIENTS.clear()
    try:
        yield
    finally:
        _override.pair = previous
        _CLIENTS.clear()


def _overrides() -> tuple[Any, Any]:
    return getattr(_override, "pair", None) or (None, None)


class HermesClient:
    def __init__(
        self,
        endpoint: Endpoint,
        *,
        transport: httpx.BaseTransport | None = None,
        async_transport: httpx.AsyncBaseTransport | None = None,
        json_timeout: float | None = None,
        chat_timeout: float | None = None,
        stream_timeout: float | None = None,
        read_retries: int | None = None,
        retry_backoff: float = 0.25,
    ):
        self.endpoint = endpoint
        self.json_timeout = json_timeout or settings.HERMES_JSON_TIMEOUT
        self.chat_timeout = chat_timeout or settings.HERMES_CHAT_TIMEOUT
        self.stream_timeout = stream_timeout or settings.HERMES_STREAM_TIMEOUT
        self.read_retries = settings.HERMES_READ_RETRIES if read_retries is None else read_retries
        self.retry_backoff = retry_backoff
        self._async_transport = async_transport
        self._http = wire.bound(
            httpx.Client(
                base_url=endpoint.base_url,
                transport=transport,
                headers=self._auth_headers(),
                timeout=self._timeout(self.json_timeout),
                follow_redirects=False,
            )
        )

    # -- plumbing ---------------------------------------------------------

    def _auth_headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.endpoint.api_key}", "Accept": "application/json"}

    @staticmethod
    def _timeout(total: float) -> httpx.Timeout:
        return httpx.Timeout(total, connect=min(total, settings.HERMES_CONNECT_TIMEOUT))

    def close(self) -> None:
        self._http.close()

    @staticmethod
    def _path(session_id: str, suffix: str = "", *, operation: str) -> str:
        try:
            return f"/api/sessions/{encode_path_id(session_id)}{suffix}"
        except IdError as exc:
            raise e.InvalidInput(str(exc), code="invalid_session_id", operation=operation) from None

    @staticmethod
    def _encode_body(body: dict, operation: str) -> bytes:
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        if len(data) > MAX_BODY_BYTES:
            raise e.InvalidInput(
                f"The request would be {len(data):,} bytes; Hermes accepts at most "
                f"{MAX_BODY_BYTES:,} bytes.",
                code="body_too_large",
                operation=operation,
            )
        return data

    def _send(
        self,
        operation: str,
        method: str,
        path: str,
        *,
        body: dict | None = None,
        params: dict | None = None,
        headers: dict | None = None,
        timeout: float | None = None,
        mutation: bool,
    ) -> dict:
        """One operation: reads are retried while time is left, mutations sent once.

        The whole operation, retries included, ends by its deadline: the page's
        budget or the operation's own timeout (see ``deadline``).
        """
        content = self._encode_body(body, operation) if body is not None else None
        send_headers = dict(headers or {})
        if content is not None:
            send_headers["Content-Type"] = "application/json"
        request = self._http.build_request(
            method, path, content=content, params=params, headers=send_headers
        )
        ends_at = deadline.call_deadline(timeout or self.json_timeout)
        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(1 if mutation else 1 + self.read_retries)
            | _out_of_time(ends_at),
            wait=_backoff(self.retry_backoff),
            retry=tenacity.retry_if_exception(_retryable),
            reraise=True,
        )
        try:
            return retrying(self._attempt, operation, request, ends_at, mutation)
        except (e.Timeout, e.TransportFailure) as error:
            # One failed operation (all its attempts) is one strike for the breaker,
            # unless Hermes was never asked or nobody waits for the answer.
            if not isinstance(error, _NotAsked) and not deadline.abandoned():
                breaker_for(self.endpoint).failed()
            raise

    def _attempt(
        self, operation: str, request: httpx.Request, ends_at: float, mutation: bool
    ) -> dict:
        if deadline.abandoned():
            raise _NotAsked(
                "The page was closed before Hermes answered.",
                code="timeout",
                operation=operation,
                outcome=e.Outcome.REJECTED,
            )
        if time.monotonic() >= ends_at:
            raise _NotAsked(
                "The page ran out of time before Hermes could be asked.",
                code="timeout",
                operation=operation,
                outcome=e.Outcome.REJECTED,
            )
        guard = breaker_for(self.endpoint)
        started = time.perf_counter()
        try:
            guard.admit()
            with (
                bulkhead.slot(self.endpoint) if deadline.current() else nullcontext(),
                tracing.hermes_call(self.endpoint.id, operation, request) as span,
            ):
                response = self._exchange(request, ends_at)
                span.set_attribute("http.response.status_code", response.status_code)
        except breaker.Open as opened:
            self._observe(operation, metrics.BREAKER, started)
            raise _unresponsive(self.endpoint, opened.since, operation) from None
        except bulkhead.Full:
            self._observe(operation, metrics.BUSY, started)
            raise _busy(self.endpoint, operation) from None
        except (httpx.TimeoutException, _Late):
            self._observe(operation, metrics.TIMEOUT, started)
            self._log_failure(operation, "timeout")
            raise _transport_error(e.Timeout, "timeout", operation, mutation) from None
        except httpx.TransportError:
            self._observe(operation, metrics.TRANSPORT, started)
            self._log_failure(operation, "transport")
            raise _transport_error(e.TransportFailure, "transport", operation, mutation) from None
        self._observe(operation, metrics.status_outcome(response.status_code), started)
        guard.succeeded()
        if response.status_code not in _RETRYABLE_STATUS:
            outages.hermes(self.endpoint.id).answered()
        # One line per call floods the console of ``make run``; operators who
        # want the trail turn it up with HERMES_UI_LOG_CALLS. Failures are
        # WARNING either way (``_log_failure``).
        log.log(
            logging.INFO if settings.HERMES_UI_LOG_CALLS else logging.DEBUG,
            "hermes op=%s endpoint=%s status=%s ms=%.1f",
            operation,
            self.endpoint.id,
            response.status_code,
            response.elapsed.total_seconds() * 1000,
        )
        if response.status_code < 400:
            return _json_payload(response, operation, mutation)
        failure = _status_error(response, operation, mutation)
        if response.status_code in _RETRYABLE_STATUS:
            self._log_failure(operation, failure.code)
        raise failure

    def _exchange(self, request: httpx.Request, ends_at: float) -> httpx.Response:
        """Send and read the whole answer by ``ends_at``, however slowly it trickles in.

        httpx's timeouts are per read, and httpcore keeps one for a whole header
        or body however many reads it takes; ``wire.until`` bounds each socket
        read and write by what is left instead. The check after every chunk
        also holds for transports without sockets (tests' mocks).
        """
        remaining = ends_at - time.monotonic()
        if remaining <= 0:
            raise _Late
        connect = min(remaining, settings.HERMES_CONNECT_TIMEOUT)
        request.extensions["timeout"] = httpx.Timeout(remaining, connect=connect).as_dict()
        started = time.perf_counter()
        with wire.until(ends_at):
            response = self._http.send(request, stream=True)
            try:
                chunks = []
                for chunk in response.iter_bytes():
                    chunks.append(chunk)
                    if time.monotonic() >= ends_at:
                        raise _Late
            finally:
                response.close()
        # Already decoded: the copy must not decode it again.
        headers = [(k, v) for k, v in response.headers.multi_items() if k != "content-encoding"]
        answer = httpx.Response(
            response.status_code,
            headers=headers,
            content=b"".join(chunks),
            request=request,
        )
        answer.elapsed = timedelta(seconds=time.perf_counter() - started)
        return answer

    def _observe(self, operation: str, outcome: str, started: float) -> None:
        metrics.HERMES_CALL_SECONDS.labels(self.endpoint.id, operation, outcome).observe(
            time.perf_counter() - started
        )

    def _log_failure(self, operation: str, code: str) -> None:
        """A failed call: one WARNING when the endpoint's outage starts, the rest DEBUG."""
        if not outages.hermes(self.endpoint.id).failed(code, f"op={operation}"):
            log.debug("hermes op=%s endpoint=%s failed code=%s", operation, self.endpoint.id, code)

    # -- reads ------------------------------------------------------------

    def list_sessions(
        self,
        *,
        limit: int = 50,
        offset: int = 0,
        source: str | None = None,
        include_children: bool = False,
    ) -> dict:
        if not 1 <= limit <= MAX_LIST_LIMIT:
            # A zero limit makes has_more true on an empty page; refuse it.
            raise e.InvalidInput(
                f"limit must be between 1 and {MAX_LIST_LIMIT}",
                code="invalid_input",
                operation="sessions_list",
            )
        params: dict[str, Any] = {"limit": limit, "offset": max(0, min(offset, 1_000_000))}
        if source:
            params["source"] = source
        if include_children:
            params["include_children"] = "true"
        payload = self._send("sessions_list", "GET", "/api/sessions", params=params, mutation=False)
        if not isinstance(payload.get("data"), list):
            raise _malformed("sessions_list", False)
        return payload

    @contextmanager
    def page_slot(self, operation: str):
        """One bulkhead slot for several calls of one page, made at once from helper
        threads (``bulkhead.riding``): a full bulkhead fails here, before any call."""
        if not deadline.current():
            yield
            return
        with contextlib.ExitStack() as held:
            try:
                held.enter_context(bulkhead.slot(self.endpoint))
            except bulkhead.Full:
                raise _busy(self.endpoint, operation) from None
            held.enter_context(bulkhead.riding())
            yield

    def get_session(self, session_id: str) -> Session:
        path = self._path(session_id, operation="session_get")
        return _session_of(self._send("session_get", "GET", path, mutation=False), "session_get")

    def get_messages(self, session_id: str) -> dict:
        """The whole active transcript, however the server pages it (``hermes.messages``)."""
        return messages.read_whole(self, session_id)

    def latest_messages(self, session_id: str, count: int) -> tuple[dict, bool]:
        """At least the last ``count`` messages in one call, and whether that is all of them."""
        return messages.read_latest(self, session_id, count)

    def messages_page(self, session_id: str, *, order: str, limit: int, offset: int) -> dict:
        """One ``session_messages`` call with paging parameters (0.19 and older ignore them)."""
        path = self._path(session_id, "/messages", operation="session_messages")
        params = {"order": order, "limit": limit, "offset": offset}
        payload = self._send("session_messages", "GET", path, params=params, mutation=False)
        if not isinstance(payload.get("data"), list) or not isinstance(
            payload.get("session_id"), str
        ):
            raise _malformed("session_messages", False)
        return payload

    # -- discovery --------------------------------------------------------

    def health(self) -> dict:
        """``GET /health`` (the provider asks for no key): status, platform and version."""
        payload = self._send("health", "GET", "/health", mutation=False)
        if not isinstance(payload.get("status"), str):
            raise _malformed("health", False)
        return payload

    def capabilities(self) -> dict:
        """``GET /v1/capabilities`` (needs the key): ``features`` flags and ``endpoints``."""
        payload = self._send("capabilities", "GET", "/v1/capabilities", mutation=False)
        if not isinstance(payload.get("features"), dict) or not isinstance(
            payload.get("endpoints"), dict
        ):
            raise _malformed("capabilities", False)
        return payload

    # -- mutations --------------------------------------------------------

    def create_session(
        self,
        *,
        idempotency_key: str,
        session_id: str | None = None,
        title: str | None = None,
        model: str | None = None,
        system_prompt: str | None = None,
    ) -> Session:
        body: dict[str, Any] = {}
        new_id = _new_id(session_id, "session_create")
        if new_id:
            body["id"] = new_id
        if title:
            body["title"] = title
        if model:
            body["model"] = model
        if system_prompt:
            body["system_prompt"] = system_prompt
        payload = self._send(
            "session_create",
            "POST",
            "/api/sessions",
            body=body,
            headers=_idempotency(idempotency_key, "session_create"),
            mutation=True,
        )
        return _session_of(payload, "session_create", mutation=True)

    def patch_session(
        self,
        session_id: str,
        *,
        idempotency_key: str,
        title: Any = UNSET,
        end_reason: Any = UNSET,
        archived: Any = UNSET,
        pinned: Any = UNSET,
    ) -> Session:
        """PATCH a session. ``archived`` and ``pinned`` need a Hermes newer than 0.19;
        0.15-0.19 answer them with 400 ``unsupported_session_field``."""
        body: dict[str, Any] = {}
        fields = {"title": title, "end_reason": end_reason, "archived": archived, "pinned": pinned}
        body.update({name: value for name, value in fields.items() if value is not UNSET})
        path = self._path(session_id, operation="session_patch")
        payload = self._send(
            "session_patch",
            "PATCH",
            path,
            body=body,
            headers=_idempotency(idempotency_key, "session_patch"),
            mutation=True,
        )
        return _session_of(payload, "session_patch", mutation=True)

    def delete_session(self, session_id: str, *, idempotency_key: str) -> dict:
        path = self._path(session_id, operation="session_delete")
        payload = self._send(
            "session_delete",
            "DELETE",
            path,
            headers=_idempotency(idempotency_key, "session_delete"),
            mutation=True,
        )
        if payload.get("object") != "hermes.session.deleted":
            raise _malformed("session_delete", True)
        return payload

    def patch_unknown_field(self, session_id: str, *, idempotency_key: str) -> Session:
        """A PATCH carrying only a field the contract does not allow, for the integration
        check: Hermes must refuse it (``unsupported_session_field``) and change nothing."""
        path = self._path(session_id, operation="session_patch")
        payload = self._send(
            "session_patch",
            "PATCH",
            path,
            body={"verification_unknown_field": True},
            headers=_idempotency(idempotency_key, "session_patch"),
            mutation=True,
        )
        return _session_of(payload, "session_patch", mutation=True)

    def fork_session(
        self,
        session_id: str,
        *,
        idempotency_key: str,
        child_id: str | None = None,
        title: str | None = None,
    ) -> Session:
        path = self._path(session_id, "/fork", operation="session_fork")
        body: dict[str, Any] = {}
        new_id = _new_id(child_id, "session_fork")
        if new_id:
            body["id"] = new_id
        if title:
            body["title"] = title
        payload = self._send(
            "session_fork",
            "POST",
            path,
            body=body,
            headers=_idempotency(idempotency_key, "session_fork"),
            mutation=True,
        )
        return _session_of(payload, "session_fork", mutation=True)

    def chat(
        self,
        session_id: str,
        *,
        message: Any,
        system_message: str | None = None,
        session_key: str | None = None,
    ) -> dict:
        path = self._path(session_id, "/chat", operation="session_chat")
        payload = self._send(
            "session_chat",
            "POST",
            path,
            body=chat_body(message, system_message),
            headers=_session_key_header(session_key, "session_chat"),
            timeout=self.chat_timeout,
            mutation=True,
        )
        if payload.get("object") == CHAT_QUEUED:
            raise _queued("session_chat")
        if payload.get("object") != "hermes.session.chat.completion":
            raise _malformed("session_chat", True)
        return payload

    async def chat_stream(
        self,
        session_id: str,
        *,
        message: Any,
        system_message: str | None = None,
        session_key: str | None = None,
        idle_timeout: float = 75.0,
    ) -> AsyncIterator[SseEvent]:
        """Yield the turn's events as they arrive, keepalive comments included.

        The caller bounds the whole stream (300 s by default) and decides what
        an early end means; closing this generator closes the upstream
        connection, which is how a cancel reaches Hermes.
        """
        operation = "session_chat_stream"
        path = self._path(session_id, "/chat/stream", operation=operation)
        opened_at = breaker_for(self.endpoint).state().opened_at
        if opened_at is not None:  # refused before anything is sent: the turn is not lost
            raise _unresponsive(self.endpoint, opened_at, operation)
        content = self._encode_body(chat_body(message, system_message), operation)
        headers = {
            **self._auth_headers(),
            **_session_key_header(session_key, operation),
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        }
        timeout = httpx.Timeout(
            self.stream_timeout,
            connect=settings.HERMES_CONNECT_TIMEOUT,
            read=idle_timeout,
        )
        transport = self._async_transport or _overrides()[1]
        # The whole stream is one call in hermes_ui_hermes_call_duration_seconds.
        started, outcome = time.perf_counter(), metrics.TRANSPORT
        async with httpx.AsyncClient(
            base_url=self.endpoint.base_url,
            transport=transport,
            timeout=timeout,
            verify=_stream_tls_context(),
        ) as http:
            try:
                async with http.stream("POST", path, content=content, headers=headers) as response:
                    outcome = metrics.status_outcome(response.status_code)
                    if response.status_code >= 400:
                        await response.aread()
                        raise _status_error(response, operation, True)
                    if response.status_code == 202:  # a newer Hermes queued the turn
                        await response.aread()
                        raise _queued(operation)
                    if not response.headers.get("content-type", "").startswith("text/event-stream"):
                        raise _malformed(operation, True)
                    parser = SseParser()
                    async for line in response.aiter_lines():
                        event = parser.feed_line(line.rstrip("\r"))
                        if event is not None:
                            yield event
                    tail = parser.flush()
                    if tail is not None:
                        yield tail
            except httpx.TimeoutException:
                outcome = metrics.TIMEOUT
                raise _transport_error(e.Timeout, "timeout", operation, True) from None
            except httpx.TransportError:
                outcome = metrics.TRANSPORT
                raise _transport_error(e.TransportFailure, "transport", operation, True) from None
            finally:
                self._observe(operation, outcome, started)


# -- helpers ---------------------------------------------------------------

# A retry is only worth starting with at least this much of the deadline left.
MIN_ATTEMPT_SECONDS = 0.5
# Longest wait a Retry-After may impose between two reads of one page.
MAX_RETRY_AFTER = 2.0


class _Late(Exception):
    """The deadline passed while the answer was still arriving."""


class _NotAsked(e.Timeout):
    """Given up before anything was sent: never uncertain, and no strike against Hermes."""


def _retryable(error: BaseException) -> bool:
    if isinstance(error, e.Unresponsive | e.Busy):
        # Refused here, not by Hermes: retrying only holds the page longer.
        return False
    if isinstance(error, e.Timeout | e.TransportFailure):
        return True
    return isinstance(error, e.HermesError) and error.status in _RETRYABLE_STATUS


def _out_of_time(ends_at: float):
    """Stop retrying when the next attempt could not start with time left, or nobody waits."""

    def stop(state: tenacity.RetryCallState) -> bool:
        upcoming = state.upcoming_sleep or 0.0
        late = time.monotonic() + upcoming + MIN_ATTEMPT_SECONDS > ends_at
        return late or deadline.abandoned()

    return stop


def _backoff(base: float):
    """Jittered exponential backoff, or the provider's ``Retry-After`` when it sent one."""
    jitter = tenacity.wait_random_exponential(multiplier=base, max=max(base * 8, 0.0))

    def wait(state: tenacity.RetryCallState) -> float:
        error = state.outcome.exception() if state.outcome else None
        after = getattr(error, "retry_after", None)
        if after is not None:
            return min(after, MAX_RETRY_AFTER)
        return jitter(state) if base > 0 else 0.0

    return wait


def _unresponsive(endpoint: Endpoint, since: float, operation: str) -> e.HermesError:
    when = timezone.localtime(datetime.fromtimestamp(since, tz=UTC)).strftime("%H:%M")
    return e.Unresponsive(
        f"Hermes {endpoint.id} is not answering since {when}; retrying automatically.",
        code="endpoint_unresponsive",
        operation=operation,
        status=503,
    )


def _busy(endpoint: Endpoint, operation: str) -> e.HermesError:
    return e.Busy(
        f"Hermes {endpoint.id} already has {settings.HERMES_BULKHEAD} requests in flight "
        "from this worker; try again in a moment.",
        code="endpoint_busy",
        operation=operation,
        status=503,
    )


_TLS_CONTEXT = None


def _stream_tls_context():
    """One TLS context for every stream: building one is costly, and a turn's
    stream would otherwise build it on the relay's event loop."""
    global _TLS_CONTEXT
    if _TLS_CONTEXT is None:
        _TLS_CONTEXT = httpx.create_ssl_context()
    return _TLS_CONTEXT


def chat_body(message: Any, system_message: str | None) -> dict:
    """The body of a chat turn, checked against the provider's content limits."""
    operation = "session_chat"
    if isinstance(message, str):
        if not message.strip():
            raise e.InvalidInput(
                "Type a message before sending.", code="missing_message", operation=operation
            )
        if len(message) > MAX_TEXT_CHARS:
            raise e.InvalidInput(
                f"A message can have at most {MAX_TEXT_CHARS:,} characters.",
                code="invalid_input",
                operation=operation,
            )
    elif isinstance(message, list):
        if not message:
            raise e.InvalidInput(
                "Type a message before sending.", code="missing_message", operation=operation
            )
        if len(message) > MAX_CONTENT_PARTS:
            raise e.InvalidInput(
                f"A message can have at most {MAX_CONTENT_PARTS:,} parts.",
                code="invalid_input",
                operation=operation,
            )
        for part in message:
            text = part.get("text") if isinstance(part, dict) else None
            if isinstance(text, str) and len(text) > MAX_TEXT_CHARS:
                raise e.InvalidInput(
                    f"Each text part can have at most {MAX_TEXT_CHARS:,} characters.",
                    code="invalid_input",
                    operation=operation,
                )
    else:
        raise e.InvalidInput(
            "A message must be text or a list of parts.", code="invalid_input", operation=operation
        )
    body: dict[str, Any] = {"message": message}
    if system_message:
        body["system_message"] = system_message
    return body


def _new_id(raw: str | None, operation: str) -> str | None:
    try:
        return check_new_id(raw)
    except IdError as exc:
        raise e.InvalidInput(str(exc), code="invalid_session_id", operation=operation) from None


def _idempotency(key: str, operation: str) -> dict[str, str]:
    if not key or any(ch in key for ch in "\r\n\x00") or len(key) > 200:
        raise e.InvalidInput(
            "A mutation needs a valid idempotency key.", code="invalid_input", operation=operation
        )
    return {"Idempotency-Key": key}


def _session_key_header(session_key: str | None, operation: str) -> dict[str, str]:
    if not session_key or not session_key.strip():
        return {}
    value = session_key.strip()
    try:
        check_path_id(value)
    except IdError:
        raise e.InvalidInput(
            "A memory scope cannot contain line breaks or NUL.",
            code="invalid_input",
            operation=operation,
        ) from None
    if len(value) > 256:
        raise e.InvalidInput(
            "A memory scope can have at most 256 characters.",
            code="invalid_input",
            operation=operation,
        )
    return {"X-Hermes-Session-Key": value}


def _transport_error(cls, code: str, operation: str, mutation: bool) -> e.HermesError:
    outcome = e.Outcome.UNCERTAIN if mutation else e.Outcome.REJECTED
    text = "Hermes did not answer in time." if code == "timeout" else "Hermes could not be reached."
    if mutation:
        text += " The change may or may not have happened."
    return cls(text, code=code, operation=operation, outcome=outcome)


def _status_error(response: httpx.Response, operation: str, mutation: bool) -> e.HermesError:
    status = response.status_code
    code, provider_message = None, None
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        code = payload["error"].get("code")
        provider_message = payload["error"].get("message")
    elif status == 404 and _session_route(response) == "one":
        return e.Unrouted(
            "Hermes did not route this session id: it answered a plain 404, not its session API.",
            code="session_unrouted",
            operation=operation,
            outcome=e.Outcome.REJECTED,
            status=status,
        )
    elif status == 404 and _session_route(response) == "list":
        return e.NoSessionApi(
            "Hermes has no session API at this address: it answers a plain 404 for "
            "/api/sessions (it needs hermes-agent 0.15 or newer).",
            code="no_session_api",
            operation=operation,
            outcome=e.Outcome.REJECTED,
            status=status,
        )
    if not isinstance(code, str) or not code:
        code = {
            403: "session_key_forbidden",
            413: "body_too_large",
            429: "rate_limited",
        }.get(status, "server_error" if status >= 500 else "bad_request")
    cls = e.STATUS_CLASSES.get(status) or (e.ServerError if status >= 500 else e.BadRequest)
    # A newer Hermes at its cap of concurrent runs refuses the turn before it starts.
    busy = status == 429 and code == "rate_limit_exceeded"
    uncertain = mutation and not busy and (status == 429 or status >= 500)
    outcome = e.Outcome.UNCERTAIN if uncertain else e.Outcome.REJECTED
    text = (
        provider_message if isinstance(provider_message, str) else f"Hermes answered HTTP {status}."
    )
    after = response.headers.get("retry-after", "")
    after = float(after) if after.isascii() and after.isdigit() else None
    if busy:
        text = "Hermes is busy: it runs as many turns at once as it allows. Nothing ran; "
        text += f"try again in {after:.0f} s." if after is not None else "try again shortly."
        provider_message = None
    if uncertain:
        text += " The change may or may not have happened."
    error = cls(
        text,
        code=code,
        operation=operation,
        outcome=outcome,
        status=status,
        provider_message=provider_message if isinstance(provider_message, str) else None,
    )
    error.retry_after = after
    return error


def _session_route(response: httpx.Response) -> str:
    """``"list"`` for ``/api/sessions`` itself, ``"one"`` for a session's own route."""
    try:
        path = response.request.url.path
    except RuntimeError:  # a response built without its request
        return ""
    # The base URL may carry a prefix of its own (a reverse proxy's /hermes/...).
    if path.endswith("/api/sessions"):
        return "list"
    return "one" if "/api/sessions/" in path else ""


CHAT_QUEUED = "hermes.session.chat.queued"


def _queued(operation: str) -> e.HermesError:
    """A turn a newer Hermes accepted for later (202): it may still run, so uncertain."""
    return e.Queued(
        "Hermes queued this turn instead of running it now: it may still run. The "
        "transcript check says whether it has landed; check the session before sending "
        "it again.",
        code="chat_queued",
        operation=operation,
        outcome=e.Outcome.UNCERTAIN,
        status=202,
    )


def _malformed(operation: str, mutation: bool, status: int | None = None) -> e.HermesError:
    outcome = e.Outcome.UNCERTAIN if mutation else e.Outcome.REJECTED
    text = "Hermes answered with something that is not the expected JSON."
    if mutation:
        text += " The change may or may not have happened."
    return e.MalformedResponse(
        text, code="malformed_response", operation=operation, outcome=outcome, status=status
    )


def _decoded(content: bytes):
    """JSON decoded by orjson (a long transcript is ~1 MB: the stdlib decoder was a
    sixth of the session page); what orjson refuses and the stdlib reads (NaN, a
    UTF-16 body) still decodes as before."""
    try:
        return orjson.loads(content)
    except orjson.JSONDecodeError:
        return json.loads(content)


def _json_payload(response: httpx.Response, operation: str, mutation: bool) -> dict:
    try:
        payload = _decoded(response.content)
    except ValueError:
        raise _malformed(operation, mutation, response.status_code) from None
    if not isinstance(payload, dict):
        raise _malformed(operation, mutation, response.status_code)
    return payload


def _session_of(payload: dict, operation: str, *, mutation: bool = False) -> Session:
    session = payload.get("session")
    if not isinstance(session, dict) or not isinstance(session.get("id"), str):
        raise _malformed(operation, mutation)
    return Session.from_row(session)


_CLIENTS: dict[str, HermesClient] = {}
_CLIENTS_LOCK = threading.Lock()


def probe_client(endpoint: Endpoint, timeout: float) -> HermesClient:
    """A one-off client with a short timeout and no retries, for health probes: a
    server that is down must cost one timeout, not the page. Close it after use."""
    sync_override, async_override = _overrides()
    return HermesClient(
        endpoint,
        transport=sync_override,
        async_transport=async_override,
        json_timeout=timeout,
        read_retries=0,
        retry_backoff=0.0,
    )


def client_for(endpoint: Endpoint) -> HermesClient:
    """A pooled client per endpoint (httpx clients are thread-safe)."""
    sync_override, async_override = _overrides()
    if sync_override is not None or async_override is not None:
        return HermesClient(
            endpoint, transport=sync_override, async_transport=async_override, retry_backoff=0.0
        )
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(endpoint.id)
        if client is None or client.endpoint != endpoint:
            client = _CLIENTS[endpoint.id] = HermesClient(endpoint)
        return client
