"""PostgreSQL + Redis + several real uvicorn workers, all started by the suite itself.

The pytest process keeps its SQLite test database; only the servers started
here get ``DATABASE_URL`` and ``REDIS_URL``, so the rest of the suite is
untouched. Each worker is its own uvicorn process on its own port, so a test
chooses exactly which worker answers.
"""

import json
import re
import subprocess
from pathlib import Path

import httpx
import pytest

from devtools.services import Postgres, Redis, postgres_bindir
from tests.support.browser import PASSWORD, REPO, USERS, DashboardServer, manage_py
from tests.support.servers import new_database

pytestmark = pytest.mark.scale


def pytest_collection_modifyitems(items) -> None:
    """The package's tests on ``workers`` last (a stable sort, in place of this package's
    tests only): the fixture starts two dashboards and two task workers, kept until the
    package ends, whose polling would otherwise idle through the other modules."""
    places = [index for index, item in enumerate(items) if item.nodeid.startswith(_HERE)]
    ours = sorted((items[index] for index in places), key=lambda i: "workers" in i.fixturenames)
    for index, item in zip(places, ours, strict=True):
        items[index] = item


_HERE = "tests/scale/"


@pytest.fixture(scope="package")
def backends():
    with Postgres() as pg, Redis() as redis:
        yield {"DATABASE_URL": pg.url, "REDIS_URL": redis.url}


@pytest.fixture(scope="package")
def scale_env(backends, migrated_template, tmp_path_factory):
    """The workers' settings: their one database is a copy of the migrated template."""
    folder = tmp_path_factory.mktemp("scale")
    url = new_database(backends["DATABASE_URL"], template=migrated_template, prefix="workers")
    return {
        **backends,
        "DATABASE_URL": url,
        "HERMES_UI_DATA_DIR": str(folder),
        "HERMES_INDEX_REFRESH_SECONDS": "0",
    }


@pytest.fixture(scope="package")
def migrated_template(backends, hermes_peer, tmp_path_factory):
    """The name of a database migrated and holding ``USERS``, made once for the package.

    ``migrated_database`` copies it (``CREATE DATABASE ... TEMPLATE``) in a fraction of
    a second; running every migration again cost each test seconds of CPU. Only
    ``test_postgres.py``'s migration test starts from an empty database. The same
    process leaves ``bare_template(name)``: the database as migrated, before the users.
    """
    url = new_database(backends["DATABASE_URL"], prefix="migrated_template")
    name = url.rsplit("/", 1)[1]
    env = {
        **backends,
        "DATABASE_URL": url,
        "HERMES_UI_DATA_DIR": str(tmp_path_factory.mktemp("tpl")),
    }
    script = _template_script(_admin_url(backends["DATABASE_URL"]), name, bare_template(name))
    done = manage(env, hermes_peer, "shell", "-c", script)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "bare:ok" in done.stdout, done.stdout
    return name


def bare_template(template: str) -> str:
    """The name of the copy of ``template`` made between ``migrate`` and its users."""
    return f"{template}_bare"


def _admin_url(database_url: str) -> str:
    """The cluster's ``postgres`` database, for ``CREATE DATABASE`` (libpq's scheme)."""
    return database_url.rsplit("/", 1)[0].replace("postgres://", "postgresql://") + "/postgres"


def _template_script(admin: str, source: str, bare: str) -> str:
    """``prepare_script``'s ``migrate`` and users, with the bare copy between them (a
    template copies only while no one is connected to it: the process closes its pool
    first). One Django process for both databases."""
    return f"""
import psycopg
from django.core.management import call_command
from django.db import connection
call_command("migrate", verbosity=0)
connection.close()
connection.close_pool()
with psycopg.connect({admin!r}, autocommit=True) as admin:
    admin.execute('CREATE DATABASE "{bare}" TEMPLATE "{source}"')
print("bare:ok")
for name, role in {USERS!r}.items():
    call_command("create_user", name, role=role, password={PASSWORD!r})
"""


@pytest.fixture(scope="package")
def synced_template(backends, migrated_template, hermes_peer, tmp_path_factory):
    """The name of a copy of the migrated template with the peer's sessions indexed
    (``run_periodic index``), for the tests that read the index from PostgreSQL: they
    copy it rather than each syncing a copy of its own."""
    url = new_database(backends["DATABASE_URL"], template=migrated_template, prefix="synced")
    env = {
        **backends,
        "DATABASE_URL": url,
        "HERMES_UI_DATA_DIR": str(tmp_path_factory.mktemp("synced")),
    }
    synced = manage(env, hermes_peer, "run_periodic", "index")
    assert synced.returncode == 0, synced.stderr[-2000:]
    return url.rsplit("/", 1)[1]


@pytest.fixture(scope="package")
def migrated_dump(backends, migrated_template, tmp_path_factory):
    """A SQL dump of the migrated template: what ``restore`` loads into a test's own
    cluster (a template copies only within its cluster)."""
    path = tmp_path_factory.mktemp("dump") / "migrated.sql"
    url = backends["DATABASE_URL"].rsplit("/", 1)[0] + "/" + migrated_template
    subprocess.run(
        [str(postgres_bindir() / "pg_dump"), "--no-owner", "--no-privileges", "-f", str(path), url],
        check=True,
        capture_output=True,
    )
    return path


def restore(dump, database_url: str) -> None:
    """Load ``migrated_dump`` into the empty database of ``database_url``."""
    psql = [str(postgres_bindir() / "psql"), "-q", "-v", "ON_ERROR_STOP=1", "-X"]
    subprocess.run([*psql, "-f", str(dump), database_url], check=True, capture_output=True)


@pytest.fixture
def migrated_database(backends, migrated_template, tmp_path):
    """``backends`` with ``DATABASE_URL`` of a new database copied from the template, and
    a data folder of the test's own."""
    url = new_database(backends["DATABASE_URL"], template=migrated_template, prefix="migrated")
    return {**backends, "DATABASE_URL": url, "HERMES_UI_DATA_DIR": str(tmp_path)}


@pytest.fixture(scope="package")
def workers(scale_env, hermes_peer, tmp_path_factory):
    """Two dashboard worker processes sharing one PostgreSQL and one Redis."""
    started = []
    try:
        for name in ("a", "b"):
            folder = tmp_path_factory.mktemp(f"worker-{name}")
            server = DashboardServer(folder, hermes_peer, extra_env=scale_env)
            started.append(server.start(prepare=False))  # migrated, with the users
        yield started
    finally:
        for server in started:
            server.stop()


@pytest.fixture(scope="package")
def support_cookies(workers) -> dict:
    """The cookies of one sign-in of "support" on the shared workers (the session lives
    in their shared database and Redis): their tests need someone signed in, not a
    sign-in each (a form sign-in hashes the password, ~0.25 CPU-s)."""
    return dict(logged_in(workers[0]).cookies)


def signed_in(server, cookies: dict) -> httpx.Client:
    """A client of ``server`` with ``cookies`` (``support_cookies``)."""
    return httpx.Client(base_url=server.base_url, timeout=30, cookies=cookies)


def manage(env: dict, peer, *args: str) -> subprocess.CompletedProcess:
    full = {**DashboardServer(REPO, peer).env, **env}
    return subprocess.run(
        manage_py(*args),
        env=full,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


class Shell:
    """``manage.py shell`` kept open for several snippets of a test: ``run(code)`` runs
    one and returns what it printed. One Django start for all of them (each snippet in
    a process of its own cost a start, about 1 CPU-s); between snippets its database
    connections go back to the pool, so a snippet after a PostgreSQL restart
    reconnects, as a page would. Its log (stderr) goes to ``log``."""

    def __init__(self, env: dict, log: Path):
        self.log_path = log
        self._log = open(log, "ab")  # noqa: SIM115 - closed in close()
        self.process = subprocess.Popen(
            manage_py("shell", "-v", "0", "-c", _SHELL_LOOP),
            env=env,
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            text=True,
        )

    def run(self, code: str) -> str:
        self.process.stdin.write(json.dumps(code) + "\n")
        self.process.stdin.flush()
        for line in self.process.stdout:
            if line.startswith(_SHELL_MARK):
                ok, printed = json.loads(line.removeprefix(_SHELL_MARK))
                assert ok, printed
                return printed
        raise AssertionError(f"the shell ended: {self.log_path.read_text()[-2000:]}")

    def close(self) -> None:
        self.process.stdin.close()
        try:
            self.process.wait(30)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
        self._log.close()

    def __enter__(self) -> "Shell":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


_SHELL_MARK = "SHELL-ANSWER "
_SHELL_LOOP = f"""
import contextlib, io, json, sys, traceback
from django.db import connections
for line in sys.stdin:
    printed, ok = io.StringIO(), True
    try:
        with contextlib.redirect_stdout(printed):
            exec(json.loads(line), {{}})
    except Exception:
        ok = False
        printed.write(traceback.format_exc())
    finally:
        connections.close_all()
    print({_SHELL_MARK!r} + json.dumps([ok, printed.getvalue()]), flush=True)
"""


def logged_in(server, username: str = "support") -> httpx.Client:
    client = httpx.Client(base_url=server.base_url, timeout=30)
    form = client.get("/accounts/login/").text
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', form).group(1)
    answer = client.post(
        "/accounts/login/",
        data={"username": username, "password": PASSWORD, "csrfmiddlewaretoken": token},
    )
    assert answer.status_code == 302, answer.text[:500]
    return client


def on_worker(client: httpx.Client, server) -> httpx.Client:
    """The same browser (cookies) talking to another worker."""
    other = httpx.Client(base_url=server.base_url, timeout=30)
    other.cookies = client.cookies
    return other
