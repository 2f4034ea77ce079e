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
