"""The index pages' counts are cached per sync state: a sync that writes shows at once."""

import pytest

from hermes_ui.index import sync
from tests.index.test_sync import seed_many

pytestmark = pytest.mark.django_db


def test_a_sync_that_adds_rows_shows_the_new_total_on_the_next_page(
    empty_hermes, mock_endpoint, login
):
    seed_many(empty_hermes, 12)
    sync.sync(mock_endpoint, full=True)
    client = login("support")
    assert "12 sessions" in client.get("/e/local/sessions/").content.decode()
    for i in range(5):
        empty_hermes.add(f"new{i}", at=2_000_000.0 + i)
    sync.sync(mock_endpoint)
    assert "17 sessions" in client.get("/e/local/sessions/").content.decode()
