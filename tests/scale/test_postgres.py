"""Migrations and queries on PostgreSQL: the throwaway cluster, a fresh database per test.

Only the migration test starts from an empty database; the others get a copy of the
package's migrated template (``migrated_database``, tests/scale/conftest.py).
"""

import secrets

import psycopg
import pytest

from tests.scale.conftest import logged_in, manage
from tests.support.browser import DashboardServer
from tests.support.servers import new_database

pytestmark = pytest.mark.scale


@pytest.fixture
def fresh_database(backends, tmp_path):
    """``DATABASE_URL`` of a new, empty database in the suite's cluster."""
    name = f"fresh_{secrets.token_hex(4)}"
    base = backends["DATABASE_URL"].rsplit("/", 1)[0]
    with psycopg.connect(
        base.replace("postgres://", "postgresql://") + "/postgres", autocommit=True
    ) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    yield {**backends, "DATABASE_URL": f"{base}/{name}", "HERMES_UI_DATA_DIR": str(tmp_path)}


def test_migrations_apply_reverse_and_match_the_models(fresh_database, hermes_peer):
    # Every step in one process: a process per step spent much of this test starting Django.
    done = manage(fresh_database, hermes_peer, "shell", "-c", _MIGRATIONS_EACH_WAY)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    steps = [line.split()[-1] for line in done.stdout.splitlines() if line.endswith(":ok")]
    # Applied; nothing left unapplied; no model change without its migration; every
    # project app back to zero, one after another in one plan; and applied again.
    assert steps == ["migrate:ok", "check:ok", "drift:ok", "zero:ok", "again:ok"], done.stdout
    reversed_apps = next(x for x in done.stdout.splitlines() if x.startswith("zero:")).split()[1:-1]
    assert {"audit", "chat", "deletion", "index"} <= set(reversed_apps), done.stdout


# ``migrate --check`` and ``makemigrations --check`` exit with status 1 (SystemExit) on
# unapplied migrations or model drift, which ends the script before its next line.
# Back to zero is one executor plan: the same reversals, app after app, as ``migrate
# <app> zero`` for each in turn, which rebuilt the project's whole migration state for
# every app.
_MIGRATIONS_EACH_WAY = """
import importlib.util as u
from django.apps import apps
from django.core.management import call_command
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.db.migrations.recorder import MigrationRecorder
call_command("migrate", verbosity=0)
print("migrate:ok")
call_command("migrate", check_unapplied=True, verbosity=0)
print("check:ok")
call_command("makemigrations", check_changes=True, dry_run=True, verbosity=0)
print("drift:ok")
labels = [a.label for a in apps.get_app_configs()
          if a.name.startswith("hermes_ui") and u.find_spec(a.name + ".migrations")]
executor = MigrationExecutor(connection)
plan = executor.migration_plan([(label, None) for label in labels])
assert plan and all(backwards for _, backwards in plan), plan
executor.migrate([(label, None) for label in labels], plan=plan)
for label in labels:
    left = MigrationRecorder(connection).migration_qs.filter(app=label).count()
    assert left == 0, (label, left)
print("zero:", *labels, "zero:ok")
call_command("migrate", verbosity=0)
print("again:ok")
"""


def test_what_sqlite_lets_pass_is_stored_on_postgresql_too(migrated_database, hermes_peer):
    env = migrated_database
    done = manage(env, hermes_peer, "shell", "-c", "from tests.scale.pg_probe import main; main()")
    assert done.returncode == 0, done.stderr[-3000:]
    checks = (
        "every-model",
        "index-upsert",
        "index-search",
        "content-store",
        "content-words",
        "content-phrase",
        "content-prefix",
        "content-filters",
        "content-paging",
        "content-escaping",
        "content-erasure",
        "turn-lock",
        "turn-events",
    )
    for check in checks:
        assert f"ok {check}" in done.stdout, done.stdout


@pytest.fixture(scope="module")
def fresh_worker(backends, synced_template, hermes_peer, tmp_path_factory):
    """A worker on a database of this module's own, a copy of the synced template (the
    shared one stays unsynced); one server for the module's two tests that need one."""
    folder = tmp_path_factory.mktemp("fresh-worker")
    env = {
        **backends,
        "DATABASE_URL": new_database(backends["DATABASE_URL"], template=synced_template),
        "HERMES_UI_DATA_DIR": str(folder),
        "HERMES_INDEX_REFRESH_SECONDS": "0",
    }
    server = DashboardServer(folder, hermes_peer, extra_env=env).start(prepare=False)
    try:
        yield server, env
    finally:
        server.stop()


def test_pages_read_and_write_postgresql_through_a_worker(fresh_worker):
    from devtools.peer import demo_ids

    server, _ = fresh_worker  # its index synced by run_periodic (synced_template)
    browser = logged_in(server, "admin")
    found = browser.get("/e/local/sessions/", params={"q": "BILLING MODULE"})
    assert found.status_code == 200
    assert demo_ids.COMPRESSION_TIP_TITLE in found.text  # search on PostgreSQL, any case
    # Transcript search on PostgreSQL: a phrase only inside message 2,400, with its snippet.
    hit = browser.get("/e/local/sessions/", params={"q": '"Done with step 1200" role:assistant'})
    assert hit.status_code == 200 and 'id="content-complete"' in hit.text
    assert "1 matching message in 1 transcript" in hit.text
    assert "<mark>Done with step 1200</mark>. All tests green." in hit.text
    hostile = browser.get("/e/local/sessions/", params={"q": "onerror"})
    assert "<img src=x" not in hostile.text and "<mark>onerror</mark>" in hostile.text
    closed = browser.get("/e/local/sessions/", params={"kind": "delegate", "state": "closed"})
    assert closed.status_code == 200 and demo_ids.DELEGATE_CHILD_1 in closed.text
    # Other tests add sessions to the shared peer: ask for the delegates' own source.
    query = {"children": "1", "source": "subagent", "limit": "200"}
    listed = browser.get("/e/local/sessions/", params=query)
    assert listed.status_code == 200 and demo_ids.DELEGATE_CHILD_1 in listed.text
    page = browser.get(f"/e/local/sessions/{demo_ids.DELEGATE_PARENT}/")
    assert page.status_code == 200 and demo_ids.DELEGATE_TITLE in page.text
    graph = browser.get(f"/e/local/lineage/{demo_ids.DELEGATE_PARENT}/")
    assert graph.status_code == 200 and demo_ids.DELEGATE_GRANDCHILD in graph.text
    for url in ("/audit/", "/deletions/"):
        assert browser.get(url).status_code == 200, url


def _backends_of(database_url: str) -> set[tuple[int, str]]:
    """(pid, start time) of every PostgreSQL backend connected to this database now."""
    name = database_url.rsplit("/", 1)[1]
    admin = database_url.rsplit("/", 1)[0].replace("postgres://", "postgresql://") + "/postgres"
    with psycopg.connect(admin) as conn:
        rows = conn.execute(
            "SELECT pid, backend_start::text FROM pg_stat_activity WHERE datname = %s", (name,)
        ).fetchall()
    return set(rows)


def test_a_worker_reuses_pooled_connections_across_requests(fresh_worker, hermes_peer):
    """Django's default opens and closes a connection per request, so PostgreSQL
    forks a backend for every page; the pool keeps them open between requests."""
    server, env = fresh_worker
    browser = logged_in(server, "admin")
    assert browser.get("/audit/").status_code == 200
    first = _backends_of(env["DATABASE_URL"])
    assert first, "the worker holds no connection between requests"
    for _ in range(20):
        assert browser.get("/audit/").status_code == 200
    later = _backends_of(env["DATABASE_URL"])
    # Twenty more pages were served by the backends already open (the pool may
    # have grown a little, never by one backend per request).
    assert len(later - first) < 5, (first, later)
    assert len(later) <= 8


def test_statistics_after_a_large_sync_vacuum_and_analyze_the_index(migrated_database, hermes_peer):
    """VACUUM sets the visibility map, so counting present sessions (every index
    page) reads the index alone; ANALYZE gives the planner real row counts."""
    env = migrated_database
    code = "from hermes_ui.index.sync import refresh_statistics; refresh_statistics()"
    done = manage(env, hermes_peer, "shell", "-c", code)
    assert done.returncode == 0, done.stderr[-2000:]
    url = env["DATABASE_URL"].replace("postgres://", "postgresql://")
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT relname, last_vacuum IS NOT NULL, last_analyze IS NOT NULL "
            "FROM pg_stat_user_tables WHERE relname LIKE 'index_%%' ORDER BY relname"
        ).fetchall()
    stats = {name: (vacuumed, analyzed) for name, vacuumed, analyzed in rows}
    for table in ("index_indexedsession", "index_contentsession", "index_contentmessage"):
        assert stats[table] == (True, True), stats
