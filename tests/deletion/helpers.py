"""Walking the deletion workflow through the views, as a person would, and looking
for what it must erase (the erasure canaries' searches)."""

import subprocess
from pathlib import Path
from urllib.parse import urlencode

from django.db import connection
from django.urls import reverse

from hermes_ui.deletion.models import DeletionRequest


def new_url(session_id: str, endpoint: str = "local") -> str:
    return (
        reverse("deletion_new", kwargs={"endpoint": endpoint})
        + "?"
        + urlencode({"session": session_id})
    )


def request_deletion(client, session_id: str, reason: str = "Customer asked us to erase it"):
    answer = client.post(
        reverse("deletion_new", kwargs={"endpoint": "local"}),
        {"session": session_id, "reason": reason},
    )
    assert answer.status_code == 302, answer.content.decode()[:2000]
    return DeletionRequest.objects.get(pk=int(answer["Location"].rstrip("/").rsplit("/", 1)[1]))


def decide(
    client,
    pk: int,
    decision: str = "approve",
    rule: str = "owner_request",
    comment: str = "Verified the owner's ticket",
):
    return client.post(
        reverse("deletion_decide", kwargs={"pk": pk}),
        {"decision": decision, "policy_rule": rule, "comment": comment},
    )


def execute(client, pk: int, **extra):
    return client.post(reverse("deletion_execute", kwargs={"pk": pk}), **extra)


def check(client, pk: int):
    return client.post(reverse("deletion_check", kwargs={"pk": pk}))


def page(client, pk: int) -> str:
    answer = client.get(reverse("deletion_detail", kwargs={"pk": pk}))
    assert answer.status_code == 200
    return answer.content.decode()


def refresh(case: DeletionRequest) -> DeletionRequest:
    case.refresh_from_db()
    return case


def table_hits(canary: str) -> list[str]:
    """Tables with a row whose text holds the canary (every column, every table)."""
    hits = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')  # noqa: S608 - names from the schema
            if any(canary in str(value) for row in cursor.fetchall() for value in row):
                hits.append(table)
    return hits


def file_hits(canary: str, paths) -> list[str]:
    needle = canary.encode()
    return [str(p) for p in paths if p.is_file() and needle in read_elsewhere(p)]


def read_elsewhere(path: Path) -> bytes:
    """The file's bytes, read by a child process. Closing a file this process opened
    drops every POSIX lock it holds on it, SQLite's included: reading the database or
    its -shm here would let another process (a task worker on the test database)
    rebuild the WAL index under this one's connections."""
    return subprocess.run(["cat", str(path)], capture_output=True, check=True).stdout


def db_files() -> list[Path]:
    """The test database's SQLite files (main and WAL); none on PostgreSQL."""
    if connection.vendor != "sqlite":
        return []
    main = Path(connection.settings_dict["NAME"])
    return [main, Path(f"{main}-wal")]
