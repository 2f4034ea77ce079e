"""Database work off the page lanes, one step at a time.

A page runs on one of a worker's lanes, whose connection outlives the request
(see ``hermes_ui.asgi``). A chat stream or an export runs for minutes on a
thread of its own instead; holding a connection all that time would take a
PostgreSQL pool slot per open stream (a few streams would starve the pages)
and leave SQLite files open on threads that end. Each of their database
steps gives the thread's connections back when it is done: to the pool on
PostgreSQL, closed on SQLite.
"""

from __future__ import annotations

import functools

from django.db import connections


def release_connections() -> None:
    """Give back this thread's connections, unless a transaction is open on one."""
    for conn in connections.all(initialized_only=True):
        if not conn.in_atomic_block:
            conn.close()


def released(fn):
    """``fn`` as one database step: its thread's connections are given back after it."""

    @functools.wraps(fn)
    def step(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        finally:
            release_connections()

    return step
