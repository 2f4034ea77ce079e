"""Database upkeep after large index writes (PostgreSQL only)."""

from django.db import connection

from hermes_ui.index.models import ContentMessage, ContentSession, IndexedSession


def refresh_statistics() -> None:
    """PostgreSQL: let the planner see freshly filled index tables.

    Until statistics are gathered, PostgreSQL plans as if the tables were
    nearly empty: a word search walked every message instead of the GIN index,
    and counting the transcripts read for vanished sessions took 22 s at 10,000
    sessions instead of milliseconds. VACUUM also sets the visibility map, so
    counting the present sessions (every index page does) reads the index
    alone. Autovacuum gets
    there within minutes; a sync that wrote thousands of rows does not wait
    for it. SQLite needs none.
    """
    if connection.vendor != "postgresql":
        return
    # VACUUM cannot run inside a transaction block; ANALYZE can.
    command = "ANALYZE" if connection.in_atomic_block else "VACUUM (ANALYZE)"
    with connection.cursor() as cursor:
        for model in (IndexedSession, ContentSession, ContentMessage):
            cursor.execute(f"{command} {model._meta.db_table}")
