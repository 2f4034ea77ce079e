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
    ``api_dashboard.token(name)`` gives a read + write token of one of its users, a new
    one on each call."""
    from tests.support.browser import DashboardServer

    server = DashboardServer(
        tmp_path_factory.mktemp("api-ui-data"), hermes_peer, {"HERMES_UI_API_RATE": "100000"}
    ).start()
    unused: dict[str, list[str]] = {}
    server.token = lambda name: _token(server, unused, name)
    yield server
    server.stop()


# Tokens made per user at a time: one ``manage.py`` process makes those the package's
# tests ask for (a process each was a Django start each).
TOKENS_AT_ONCE = 2


def _token(server, unused: dict[str, list[str]], name: str) -> str:
    """An unused token of ``name``: the next of a batch made by ``manage.py api_token
    create`` for every user at once."""
    import subprocess

    from tests.support.browser import REPO, USERS, manage_py

    if not unused.get(name):
        script = (
            "from django.core.management import call_command\n"
            f"for name in {sorted(USERS) * TOKENS_AT_ONCE!r}:\n"
            "    call_command('api_token', 'create', name, '--write', '--name', 'tools')\n"
            "    print('for', name)\n"
        )
        made = subprocess.run(
            manage_py("shell", "-c", script),
            env=server.env,
            capture_output=True,
            text=True,
            check=True,
            cwd=REPO,
        )
        words = made.stdout.split()
        for token, marker, user in zip(words, words[1:], words[2:], strict=False):
            if token.startswith("hui_") and marker == "for":
                unused.setdefault(user, []).append(token)
    return unused[name].pop(0)
