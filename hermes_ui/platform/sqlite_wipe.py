"""After erasing text from the dashboard's database: make SQLite drop its old copies.

Deleting or overwriting a row does not remove its bytes from disk by
itself. With ``PRAGMA secure_delete=ON`` (set on every connection, see
``backends.sqlite_database``) SQLite zeroes the freed space in the pages it
rewrites, so the main file keeps no erased text in free pages or cells. In
WAL mode those rewritten pages are first appended to the ``-wal`` file,
next to the older page images that still hold the text; a ``TRUNCATE``
checkpoint copies the new pages into the main file and truncates the WAL to
zero bytes, so the old images go with it.

PostgreSQL keeps dead row versions until (auto)vacuum reclaims them; that
is the operator's vacuum policy, not something a request can force here.
"""

from __future__ import annotations

import logging

from django.db import DatabaseError, connections, transaction

log = logging.getLogger("hermes_ui.erasure")


def checkpoint(using: str = "default") -> None:
    """Truncate SQLite's WAL once the erasure's transaction has committed.

    SQLite cannot checkpoint inside a transaction, hence ``on_commit`` (which
    runs at once outside one). A reader that still holds an older snapshot
    keeps the checkpoint from finishing (SQLite answers "busy"); the next
    erasure or purge retries, and SQLite's own automatic checkpoints
    overwrite the frames meanwhile.
    """
    if connections[using].vendor == "sqlite":
        transaction.on_commit(lambda: truncate_wal(using), using=using)


def truncate_wal(using: str = "default") -> bool:
    """``PRAGMA wal_checkpoint(TRUNCATE)`` now; True if the WAL is empty afterwards."""
    try:
        with connections[using].cursor() as cursor:
            cursor.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            busy, _frames, _done = cursor.fetchone()
    except DatabaseError:
        busy = True
    if busy:
        log.warning("wal checkpoint after an erasure was busy; the next one retries it")
    return not busy
