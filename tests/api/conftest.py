"""Fixtures of the API tests: a Bearer client per role, from real tokens."""

import pytest
from django.test import Client

from hermes_ui.api_tokens import tokens
from tests.chat.conftest import chat_db, on_peer  # noqa: F401 (fixtures of the chat tests)


@pytest.fixture
def bearer(users):
    """``bearer(name, write=False)``: a client sending a fresh token of that user (the
    ``users`` fixture's support, reviewer, admin, admin2), and no session cookie."""

    def make(name: str, *, write: bool = False, days: int = 30) -> Client:
        _, plain = tokens.issue(users[name], f"{name} test token", days=days, write=write)
        client = Client(headers={"Authorization": f"Bearer {plain}"})
        client.token = plain
        return client

    return make


@pytest.fixture(scope="package")
def api_dashboard(tmp_path_factory, hermes_peer):
    """The dashboard under uvicorn over the shared demo peer, for the tools that speak HTTP
    (Schemathesis, the generated client); its rate limit out of their way.
    ``api_dashboard.token(name)`` makes a read + write token of one of its users."""
    from tests.support.browser import DashboardServer

    server = DashboardServer(
        tmp_path_factory.mktemp("api-ui-data"), hermes_peer, {"HERMES_UI_API_RATE": "100000"}
    ).start()
    server.token = lambda name: _token(server, name)
    yield server
    server.stop()


def _token(server, name: str) -> str:
    import subprocess

    from tests.support.browser import REPO, manage_py

    made = subprocess.run(
        manage_py("api_token", "create", name, "--write", "--name", "tools"),
        env=server.env,
        capture_output=True,
        text=True,
        check=True,
        cwd=REPO,
    )
    return next(word for word in made.stdout.split() if word.startswith("hui_"))
