"""A dependency's outage, as one process sees it: one WARNING when it starts, one INFO when it ends.

The database, Redis and each Hermes endpoint go away now and then; the
dashboard answers 503s and waits for them by design. Logging every failed
request or round would bury the one line an operator needs, so each process
keeps one ``Outage`` per dependency and says when it began and how long it
lasted. It must not import models: the logging filter below is built before
the app registry is ready.
"""

from __future__ import annotations

import logging
import sys
import threading
import time

from django.db.backends.signals import connection_created


class Outage:
    """Whether one dependency is away, in this process; logs only the changes."""

    def __init__(self, name: str, what_then: str = "", logger: str = "hermes_ui.outages"):
        self.name = name
        self.what_then = what_then
        self.log = logging.getLogger(logger)
        self._lock = threading.Lock()
        self._since: float | None = None

    @property
    def down(self) -> bool:
        return self._since is not None

    def failed(self, exc: BaseException | str, where: str) -> bool:
        """Record a failure (an exception, or a code saying what went wrong); True (and one
        WARNING) if it starts an outage."""
        with self._lock:
            if self._since is not None:
                return False
            self._since = time.monotonic()
        cause = exc if isinstance(exc, str) else type(exc).__name__
        then = f": {self.what_then}" if self.what_then else ""
        self.log.warning("%s unreachable (%s in %s)%s", self.name, cause, where, then)
        return True

    def answered(self) -> None:
        """Record an answer; ends an outage with one INFO line giving its length."""
        if self._since is None:
            return
        with self._lock:
            since, self._since = self._since, None
        if since is not None:
            self.log.info("%s is back after %.1f s", self.name, time.monotonic() - since)


DATABASE = Outage("database", "pages answer 503 and background work waits")


def _connected(sender, connection, **kwargs) -> None:
    DATABASE.answered()


# Every new connection (a page's, a worker's) ends a database outage: a pooled
# PostgreSQL connection is taken anew for each request and round.
connection_created.connect(_connected, dispatch_uid="hermes_ui.outages")

_endpoints: dict[str, Outage] = {}
_endpoints_lock = threading.Lock()


def hermes(endpoint_id: str) -> Outage:
    """The outage record of one Hermes endpoint (ids are operator-configured, so few)."""
    with _endpoints_lock:
        found = _endpoints.get(endpoint_id)
        if found is None:
            found = _endpoints[endpoint_id] = Outage(
                f"hermes endpoint={endpoint_id}", logger="hermes_ui.hermes"
            )
        return found


def database_unreachable(exc: BaseException | None) -> bool:
    """Is ``exc`` the database being unreachable (rather than a bug in a query)?"""
    from django.db import InterfaceError, OperationalError

    return isinstance(exc, OperationalError | InterfaceError) or waited_for_pool(exc)


def waited_for_pool(exc: BaseException | None) -> bool:
    """No connection came from the pool in time (Django wraps psycopg_pool's PoolTimeout)."""
    return any(type(e).__name__ == "PoolTimeout" for e in (exc, getattr(exc, "__cause__", None)))


def database_ready(where: str) -> bool:
    """Can this thread reach the database now? Records the outage's start and end."""
    from django.db import connection

    try:
        connection.ensure_connection()
    except Exception as exc:
        if not database_unreachable(exc):
            raise
        DATABASE.failed(exc, where)
        connection.close()
        return False
    DATABASE.answered()
    return True


def log_failure(logger: logging.Logger, message: str, *args) -> None:
    """``logger.exception`` for a background step, unless the database is away (said once)."""
    exc = sys.exc_info()[1]
    if database_unreachable(exc):
        DATABASE.failed(exc, message % args if args else message)  # type: ignore[arg-type]
        return
    logger.exception(message, *args)


class TaskOutageFilter(logging.Filter):
    """On ``django_tasks``: a task whose outcome could not be stored because the database
    went away is the outage, said once, not an ERROR with a stack.

    A round that ended just as PostgreSQL stopped failed to save SUCCESSFUL; it has
    queued its next run already, and the heartbeat restarts a round it lost.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None and database_unreachable(exc):
            DATABASE.failed(exc, "a background task")
            return False
        return True


class ExpectedOutageFilter(logging.Filter):
    """On ``django.request``: a 503 or 504 the dashboard answered on purpose is no ERROR.

    A page answering "the database is unreachable" or "Hermes is not
    answering" is the design working; the outage itself is logged once by
    ``Outage``. A real 500 keeps its record and its stack.
    """

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            if database_unreachable(exc):
                DATABASE.failed(exc, "a page")
                return False
            return True
        return getattr(record, "status_code", None) not in {503, 504}
