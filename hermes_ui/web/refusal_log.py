"""Refused requests (403, 404) log one line each, without a stack, and a flood is capped.

Django logs a ``PermissionDenied`` with its traceback at WARNING, so every
support user opening an admin page wrote a stack: noise that hides real
errors, and a cheap way to flood the log. This filter, on the
``django.request`` and ``django.security.csrf`` loggers, rewrites each 403
or 404 record into one line: the user's id, the URL *pattern* (never the
path itself, which can carry ids and search text) and a reason code.
Anything else (a 500 and its stack included) passes unchanged.

A client (by address) gets ``PER_WINDOW`` refusal lines per ``WINDOW``
seconds in each process; the rest are counted, announced once, and the
count is given on its next logged line.

It must not import models: ``LOGGING`` is configured before the app
registry is ready.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

REFUSED = {403, 404}
PER_WINDOW = 10
WINDOW = 60.0
_MAX_CLIENTS = 10_000  # addresses remembered at once; the oldest window is forgotten first


def reason_code(record: logging.LogRecord, request) -> str:
    """Why the request was refused, as a code (never the exception's own words)."""
    if record.name == "django.security.csrf":
        return "csrf"
    exc = record.exc_info[1] if record.exc_info else None
    if getattr(record, "status_code", None) == 404:
        if getattr(request, "resolver_match", None) is None:
            return "no_route"
        return "not_found"
    if exc is not None and str(exc).startswith("This needs the"):
        return "role"
    if exc is not None:
        return "not_permitted"
    return "refused"


def user_id(request) -> str:
    try:
        user = request.user
        return str(user.pk) if user.is_authenticated else "anonymous"
    except Exception:  # no user on this request (refused before authentication)
        return "anonymous"


def route(request) -> str:
    match = getattr(request, "resolver_match", None)
    if match is None:
        return "(no route)"
    return "/" + (match.route or "")


class RefusalFilter(logging.Filter):
    def __init__(self, clock: Callable[[], float] = time.monotonic):
        super().__init__()
        self.clock = clock
        self._lock = threading.Lock()
        # client address -> [window start, lines logged, lines withheld]
        self._windows: dict[str, list] = {}

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) not in REFUSED:
            return True
        if getattr(record, "refusal_logged", False):
            return True  # already rewritten (logging configured twice in one process)
        record.refusal_logged = True
        request = getattr(record, "request", None)
        client = (getattr(request, "META", None) or {}).get("REMOTE_ADDR") or "-"
        withheld, verdict = self._admit(client)
        if verdict == "drop":
            return False
        if verdict == "cap":
            record.msg = "Refusals from client %s: more than %d in %d s, not logged until then"
            record.args = (client, PER_WINDOW, int(WINDOW))
        else:
            record.msg = "Refused %s user=%s path=%s reason=%s%s"
            record.args = (
                record.status_code,  # type: ignore[attr-defined]
                user_id(request),
                route(request),
                reason_code(record, request),
                f" (+{withheld} earlier refusals from this client not logged)" if withheld else "",
            )
        record.exc_info = None
        record.exc_text = None
        record.stack_info = None
        return True

    def _admit(self, client: str) -> tuple[int, str]:
        now = self.clock()
        with self._lock:
            window = self._windows.get(client)
            withheld = 0
            if window is None or now - window[0] >= WINDOW:
                withheld = window[2] if window else 0
                if len(self._windows) >= _MAX_CLIENTS and client not in self._windows:
                    self._windows.pop(next(iter(self._windows)))
                self._windows.pop(client, None)
                window = self._windows[client] = [now, 0, 0]
            if window[1] < PER_WINDOW:
                window[1] += 1
                return withheld, "log"
            window[2] += 1
            return 0, "cap" if window[2] == 1 else "drop"
