"""What this release's ``hermes_state.SessionDB`` can do, found by introspection.

The seed runs on every release with the session API (0.15 to 0.19). Their
``SessionDB`` differ: 0.15's ``append_message`` takes no ``timestamp``, 0.15
has no archive (``set_session_archived``) and no ``messages.active`` column,
0.15-0.17 have no in-place compaction (``archive_and_compact``).
Everything here asks the object or the schema, never a version string, so a
release in between (or a backport) gets whatever it actually has.
"""

from __future__ import annotations

import inspect


def accepts(fn, name: str) -> bool:
    """Does callable ``fn`` take a keyword argument ``name`` (or ``**kwargs``)?"""
    try:
        params = inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
    return name in params or any(p.kind is p.VAR_KEYWORD for p in params.values())


def explicit(fn, name: str) -> bool:
    """Does ``fn`` name parameter ``name`` itself (``**kwargs`` does not count)?"""
    try:
        return name in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def columns(db, table: str) -> set[str]:
    with db._lock:
        rows = db._conn.execute(f"PRAGMA table_info({table})").fetchall()
    return {r[1] for r in rows}


class Compat:
    """The capabilities of one open ``SessionDB``."""

    def __init__(self, db):
        self.db = db
        self.message_timestamp = explicit(db.append_message, "timestamp")
        self.archive = hasattr(db, "set_session_archived")
        self.compact_in_place = hasattr(db, "archive_and_compact")
        insert = getattr(db, "_insert_session_row", db.create_session)
        self.session_key = explicit(insert, "session_key")
        self.message_active = "active" in columns(db, "messages")
        self._pending: list[tuple[float, int]] = []  # (timestamp, message row id)

    def append_message(self, sid, role, content, ts, **kw):
        if self.message_timestamp:
            return self.db.append_message(sid, role, content, timestamp=ts, **kw)
        row_id = self.db.append_message(sid, role, content, **kw)
        self._pending.append((ts, row_id))
        return row_id

    def flush(self) -> None:
        """Pin the replayed timestamps of messages appended without one, in one
        transaction (one per message made the 0.15 seed 20x slower)."""
        if not self._pending:
            return
        pending, self._pending = self._pending, []
        self.db._execute_write(
            lambda conn: conn.executemany("UPDATE messages SET timestamp = ? WHERE id = ?", pending)
        )

    def summary(self) -> dict:
        return {
            "message_timestamp": self.message_timestamp,
            "archive": self.archive,
            "compact_in_place": self.compact_in_place,
            "session_key": self.session_key,
            "message_active": self.message_active,
        }
