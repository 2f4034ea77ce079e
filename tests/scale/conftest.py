"""PostgreSQL + Redis + several real uvicorn workers, all started by the suite itself.

The pytest process keeps its SQLite test database; only the servers started
here get ``DATABASE_URL`` and ``REDIS_URL``, so the rest of the suite is
untouched. Each worker is its own uvicorn process on its own port, so a test
chooses exactly which worker answers.
"""

import re
import subprocess
import sys

import httpx
import pytest

from devtools.services import Postgres, Redis
from tests.support.browser import PASSWORD, REPO, DashboardServer

pytestmark = pytest.mark.scale


@pytest.fixture(scope="package")
def backends():
    with Postgres() as pg, Redis() as redis:
        yield {"DATABASE_URL": pg.url, "REDIS_URL": redis.url}


@pytest.fixture(scope="package")
def scale_env(backends, tmp_path_factory):
    folder = tmp_path_factory.mktemp("scale")
    return {**backends, "HERMES_UI_DATA_DIR": str(folder), "HERMES_INDEX_REFRESH_SECONDS": "0"}


@pytest.fixture(scope="package")
def workers(scale_env, hermes_peer, tmp_path_factory):
    """Two dashboard worker processes sharing one PostgreSQL and one Redis."""
    started = []
    try:
        for name in ("a", "b"):
            folder = tmp_path_factory.mktemp(f"worker-{name}")
            started.append(DashboardServer(folder, hermes_peer, extra_env=scale_env).start())
        yield started
    finally:
        for server in started:
            server.stop()


def manage(env: dict, peer, *args: str) -> subprocess.CompletedProcess:
    full = {**DashboardServer(REPO, peer).env, **env}
    return subprocess.run(
        [sys.executable, str(REPO / "manage.py"), *args],
        env=full,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )


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
