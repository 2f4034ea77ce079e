import os
import time
from unittest import mock

import pytest
from django.test import Client

from hermes_ui.access.grants import set_role
from hermes_ui.access.models import Grant
from hermes_ui.hermes import breaker, bulkhead
from hermes_ui.hermes.client import use_transport
from hermes_ui.platform.endpoints import Endpoint
from tests.support import shared
from tests.support.cpu import cpu_seconds
from tests.support.fakes import FakeHermes
from tests.support.ordering import Ordering
from tests.support.peers import (  # noqa: F401 (fixtures shared by several packages)
    changes_client,
    changes_endpoint,
    changes_peer,
    endpoints,
    fresh_peer,
    hermes_peer,
    peer_endpoint,
    two_peers,
    with_down,
)
from tests.support.redis_server import redis_url, with_redis  # noqa: F401 (fixtures)
from tests.support.samples import Recorder

TEST_KEY = "test-key-0123456789abcdef"
PASSWORD = "correct-horse-battery"


@pytest.fixture(autouse=True)
def fast_passwords(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True, scope="session")
def static_files_listed_once():
    """WhiteNoise lists every static file when its middleware is built, which Django's
    test Client does for each client: 13 ms, a fifth of a role-matrix test. The files
    do not change during a run, so the first list serves every later client."""
    from whitenoise.middleware import WhiteNoiseMiddleware

    listed: dict[tuple, dict] = {}
    list_files = WhiteNoiseMiddleware.add_files_from_finders

    def add_files_from_finders(self) -> None:
        key = (self.static_prefix, self.max_age, self.charset, self.allow_all_origins)
        if key not in listed:
            before = dict(self.files)
            list_files(self)
            listed[key] = {url: f for url, f in self.files.items() if before.get(url) is not f}
        self.files.update(listed[key])

    with mock.patch.object(WhiteNoiseMiddleware, "add_files_from_finders", add_files_from_finders):
        yield


@pytest.fixture(scope="session")
def django_db_modify_db_settings(django_db_modify_db_settings, django_db_keepdb):
    """pytest-django's step just before it makes the test database: from here on, its
    ``migrate`` copies the run's migrated SQLite file when another worker made it
    (``tests/support/database.py``). ``--reuse-db`` keeps Django's own path."""
    if django_db_keepdb:
        yield
        return
    from tests.support.database import migrated_once

    with migrated_once():
        yield


@pytest.fixture(autouse=True)
def fresh_breakers():
    """Each test starts with every endpoint's breaker closed, its bulkhead empty and no
    cached probe answer (probes feed the breaker)."""
    from django.core.cache import cache

    breaker.reset_all()
    bulkhead.reset_all()
    cache.clear()
    yield
    breaker.reset_all()
    bulkhead.reset_all()


@pytest.fixture
def jobs_db(transactional_db):
    """Jobs run as tasks on a worker thread of this process (``tests/support/tasks.py``),
    so tests see committed rows only.

    Depending on ``transactional_db`` makes this teardown (waiting for the queue to
    empty) run before the database is flushed.
    """
    from tests.support.tasks import InProcessWorker

    with InProcessWorker() as worker:
        yield worker


@pytest.fixture
def task_worker_process(transactional_db, tmp_path):
    """A real ``manage.py task_worker`` process on the test database, alive when yielded;
    stopped (SIGTERM) after the test. Its output is in ``tmp_path / "task_worker.log"``."""
    from django.db import connections

    from tests.support.tasks import WorkerProcess, worker_env

    # The worker reads the file on its own: nothing of this process's connections
    # (an earlier test's snapshot or lock) may stand between them.
    connections.close_all()
    worker = WorkerProcess(worker_env(), "test-process", tmp_path / "task_worker.log").start()
    try:
        worker.wait_alive()
        yield worker
    finally:
        worker.stop()


@pytest.fixture
def mock_endpoint(settings):
    endpoint = Endpoint("local", "http://hermes.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"local": endpoint}
    settings.HERMES_ENDPOINT_ID = "local"
    return endpoint


@pytest.fixture
def eu_us(settings):
    """Two endpoints, ``eu`` (the default) and ``us``, for tests of who sees which."""
    eu = Endpoint("eu", "http://eu.test", TEST_KEY)
    us = Endpoint("us", "http://us.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"eu": eu, "us": us}
    settings.HERMES_ENDPOINT_ID = "eu"
    return eu, us


@pytest.fixture
def recorder(mock_endpoint):
    """Answers every Hermes call from a route table; tests fill ``recorder.routes``."""
    rec = Recorder()
    with use_transport(rec.transport):
        yield rec


@pytest.fixture
def fake_hermes(mock_endpoint):
    """A stateful Hermes (``tests/support/fakes.py``) holding the captured lineage rows."""
    fake = FakeHermes.captured()
    with use_transport(fake.transport):
        yield fake


@pytest.fixture
def empty_hermes(fake_hermes):
    """``fake_hermes`` without the captured rows: the index and lineage tests seed exactly
    the rows they reason about; real behaviour is covered again in the *_peer tests."""
    fake_hermes.clear()
    return fake_hermes


def make_users() -> dict:
    """support, reviewer, admin and admin2, each with their role on every endpoint."""
    from django.contrib.auth import get_user_model

    made = {}
    for name, role in [
        ("support", "support"),
        ("reviewer", "reviewer"),
        ("admin", "admin"),
        ("admin2", "admin"),
    ]:
        user = get_user_model().objects.create_user(name, password=PASSWORD)
        # Fixture data, not an admin's act: the grant on "*" without an audit event.
        Grant.objects.create(user=user, endpoint="*", role=role)
        made[name] = user
    return made


@pytest.fixture
def users(db):
    return make_users()


@pytest.fixture
def login(users):
    def _login(name: str) -> Client:
        client = Client()
        client.force_login(users[name])
        return client

    return _login


@pytest.fixture
def colleague(db, django_user_model):
    """A client of a second support user: the same role as ``support``, not the same person."""
    user = django_user_model.objects.create_user("colleague", password=PASSWORD)
    set_role(user, "support")
    client = Client()
    client.force_login(user)
    return client


# -- the real Hermes peers: tests/support/peers.py -------------------------------------------


# -- browser tests ----------------------------------------------------------------


@pytest.fixture(scope="session")
def dashboard(tmp_path_factory, hermes_peer):  # noqa: F811 (imported fixture)
    from tests.support.browser import DashboardServer

    server = DashboardServer(tmp_path_factory.mktemp("ui-data"), hermes_peer).start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def dashboard_logins(chromium, dashboard):
    """Sign-ins on ``dashboard`` for tests that need someone signed in, not a sign-in:
    one form login per person and worker, its cookies reused (``Logins``). A form login
    was most of a short browser test's CPU (password hash, login page, landing page)."""
    from tests.support.browser import Logins

    return Logins(chromium, dashboard.base_url)


@pytest.fixture(scope="session")
def chromium():
    from playwright.sync_api import sync_playwright

    from tests.support.browser import CHROMIUM, CHROMIUM_ARGS

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium):
    """A tab whose test fails on any Content-Security-Policy violation."""
    from tests.support.browser import assert_no_csp_violations, watched_context

    context = watched_context(chromium, viewport={"width": 1400, "height": 900})
    tab = context.new_page()
    yield tab
    context.close()
    assert_no_csp_violations(context)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Each test is marked with its ``xdist_group`` for ``-n 3 --dist loadgroup
    --no-loadscope-reorder`` (``make test``), tried first so pytest-xdist sees the marks;
    ``tests/support/ordering.py`` then orders the groups (browser tests last: Playwright's
    sync API leaves an event loop running in the main thread, after which Django's ORM
    and asyncio.run() refuse to run).
    """
    groups = xdist_groups(items)
    for item, group in zip(items, groups, strict=True):
        item.add_marker(pytest.mark.xdist_group(group))
    if hasattr(config, "workerinput"):
        shared.write_groups(config.workerinput["workerid"], [i.nodeid for i in items], groups)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` by the groups the workers wrote: pytest 9 ignores the group
    suffix pytest-xdist 3.8 puts on a test's id, which split every group between workers."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class Groups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return shared.read_groups().get(nodeid, nodeid)

    return Groups(config, log)


def xdist_groups(items) -> list[str]:
    """The tests one xdist worker runs together, in order: the modules sharing a
    package-scoped fixture (a package's peer or dashboard, started once), else a module.

    Browser tests form groups of their own: a worker runs the groups it is given one
    after another, and a group mixing both kinds would run ORM tests after its browser
    tests. ``tests/scale/`` is one group: its tests time pages under load and outages,
    and two of them at once on two cores would time each other.
    """
    modules: dict[str, str] = {}
    for item in items:
        module = item.nodeid.split("::")[0]
        if module.startswith("tests/scale/"):
            modules[module] = "tests/scale"
        for fixturedefs in item._fixtureinfo.name2fixturedefs.values():
            if fixturedefs and fixturedefs[-1].scope == "package":
                modules[module] = min(modules.get(module, module), fixturedefs[-1].baseid, key=len)
    return [
        modules.get(item.nodeid.split("::")[0], item.nodeid.split("::")[0])
        + (" browser" if item.get_closest_marker("browser") else "")
        for item in items
    ]


def pytest_configure(config):
    """The run's shared folder (``tests/support/shared.py``), named before any worker starts;
    the order the groups are handed out in (``tests/support/ordering.py``)."""
    shared.start_run()
    config.pluginmanager.register(Ordering(), "hermes-ui-ordering")
    # An xdist controller hears its workers' tests again: only the process running them
    # writes the timeline.
    global _timeline_here
    _timeline_here = hasattr(config, "workerinput") or not config.getoption("numprocesses", 0)


def pytest_unconfigure(config):
    """Django removes the test database's file, but not SQLite's ``-wal`` and ``-shm``
    beside it when a worker thread's connection still had them open: remove them too,
    so ``data/`` does not gather one pair per test run."""
    from pathlib import Path

    from django.conf import settings

    if not hasattr(config, "workerinput"):
        shared.end_run()  # its workers have ended
    db = settings.DATABASES["default"]
    name = db.get("TEST", {}).get("NAME")
    if "sqlite3" not in db["ENGINE"] or not name or Path(name).exists():
        return  # kept (--reuse-db): its WAL holds committed pages
    for suffix in ("-wal", "-shm"):
        Path(name + suffix).unlink(missing_ok=True)


# -- the opt-in timeline (devtools/timeline.py reads it) ----------------------------

_started: dict[str, tuple[float, float | None]] = {}
_timeline_here = True


def pytest_runtest_logstart(nodeid, location):
    if _timeline_here and os.environ.get("HERMES_UI_TIMELINE"):
        _started[nodeid] = (time.time(), cpu_seconds())


def pytest_runtest_logfinish(nodeid, location):
    """With ``HERMES_UI_TIMELINE=path``, append ``worker start end cpu nodeid`` per test:
    the wall clock, so the workers' lines compare and show who sits idle at the end, and
    the CPU seconds of the worker and every process it started (``-`` without cgroups)."""
    path = os.environ.get("HERMES_UI_TIMELINE")
    if not path or nodeid not in _started:
        return
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    start, cpu_start = _started.pop(nodeid)
    cpu_end = cpu_seconds()
    cpu = "-" if cpu_start is None or cpu_end is None else f"{cpu_end - cpu_start:.3f}"
    line = f"{worker} {start:.3f} {time.time():.3f} {cpu} {nodeid}\n"
    with open(path, "a") as timeline:  # one short write: lines of two workers never mix
        timeline.write(line)
