"""The pytest processes' test database: migrated once per run, copied by the others.

Each xdist worker makes its own SQLite test database (``test_hermes_ui_<pid>``);
running every migration for each cost seconds of CPU per worker. The first worker
to get there migrates as usual and leaves a copy in the run's shared folder
(``tests/support/shared.py``); the others copy that file instead of migrating.
A copy holds the same schema and the same rows migrations and their
``post_migrate`` handlers write (content types, permissions, the queued rounds).
PostgreSQL (``DATABASE_URL``) and ``--reuse-db`` keep Django's own path.
"""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.shared import made_once

FILE = "test.sqlite3"


@contextmanager
def migrated_once(alias: str = "default") -> Iterator[None]:
    """Until Django has made the test database of ``alias``, its ``migrate`` (SQLite)
    copies the run's migrated file, or makes it; any other command runs as usual."""
    from django.core import management
    from django.db import connections

    migrate = management.call_command  # create_test_db imports it when it runs

    def call_command(name: str, *args, **options):
        connection = connections[alias]
        if name != "migrate" or options.get("database") != alias:
            return migrate(name, *args, **options)
        management.call_command = migrate  # this one migrate only
        if connection.vendor != "sqlite":
            return migrate(name, *args, **options)
        path = Path(connection.settings_dict["NAME"])
        made: list[bool] = []

        def make(folder: Path) -> None:
            migrate(name, *args, **options)
            made.append(True)
            connection.close()
            _fold_wal(path)
            shutil.copyfile(path, folder / FILE)

        folder = made_once("test-database", make)
        if not made:
            connection.close()
            for suffix in ("-wal", "-shm"):
                Path(f"{path}{suffix}").unlink(missing_ok=True)
            shutil.copyfile(folder / FILE, path)
        return None

    management.call_command = call_command
    try:
        yield
    finally:
        management.call_command = migrate


def _fold_wal(path: Path) -> None:
    """Fold the WAL into the file, so a plain copy of the file is the whole database."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    finally:
        conn.close()
