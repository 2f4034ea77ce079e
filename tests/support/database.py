"""The pytest processes' test database: a copy of the run's migrated file.

Each xdist worker made its own SQLite test database (``test_hermes_ui_<pid>``) by
running every migration, seconds of CPU per worker. Now Django's ``migrate`` for
it copies ``migrated_database()`` (``tests/support/browser.py``: ``manage.py
migrate``, once per run), which the dashboards' template starts from too. The
schema and the rows migrations write (content types, permissions) are the same.
PostgreSQL (``DATABASE_URL``) and ``--reuse-db`` keep Django's own path.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from tests.support.browser import migrated_database


@contextmanager
def migrated_once(alias: str = "default") -> Iterator[None]:
    """Until Django has made the test database of ``alias``, its ``migrate`` (SQLite)
    copies ``migrated_database()``; any other command runs as usual."""
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
        connection.close()
        for suffix in ("-wal", "-shm"):
            Path(f"{path}{suffix}").unlink(missing_ok=True)
        shutil.copyfile(migrated_database(), path)
        return None

    management.call_command = call_command
    try:
        yield
    finally:
        management.call_command = migrate
