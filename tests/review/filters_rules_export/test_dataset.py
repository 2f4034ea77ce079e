"""The dataset export over a fake Hermes: unreadable sessions, the download limits, no session."""

import json

import pytest
from django.urls import reverse

from hermes_ui.index import sync
from hermes_ui.review.models import Item
from hermes_ui.web import download_limits
from tests.index.test_sync import seed_lineage
from tests.review.filters_rules_export.made import item, review

pytestmark = pytest.mark.django_db


@pytest.fixture
def queue(empty_hermes, mock_endpoint, users, version, queue_maker):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    made = queue_maker(mock_endpoint)
    for sid in ("par", "gone-from-hermes", "br"):
        review(
            item(made, sid, state=Item.COMPLETED), users["reviewer"], version, {"resolved": "no"}
        )
    return made


def url(queue) -> str:
    return reverse("review_dataset", kwargs={"endpoint": "local", "queue": queue.pk})


def test_a_session_hermes_cannot_read_is_a_record_saying_so(queue, login):
    answer = login("reviewer").get(url(queue), {"format": "jsonl", "per": "session"})
    *lines, last = b"".join(answer.streaming_content).decode().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["session_id"] for r in records] == ["par", "gone-from-hermes", "br"]
    assert records[1]["error"] and "labels" not in records[1]
    assert records[0]["labels"] == {"resolved": "no"} and records[0]["output"] == "hello par 2"
    assert json.loads(last) | {"sha256": ""} == {
        "sha256": "",
        "sha256_covers": "every byte before this line",
        "records": 2,
        "failed": 1,
    }


def test_the_download_limits_apply(queue, login, settings):
    settings.HERMES_UI_EXPORTS_PER_USER = 1
    client = login("reviewer")
    first = client.get(url(queue), {"format": "csv"})
    assert download_limits.running() == 1  # held while the first streams
    second = client.get(url(queue), {"format": "csv"})
    assert second.status_code == 429 and "already have 1 export" in second.content.decode()
    b"".join(first.streaming_content)
    assert download_limits.running() == 0


def test_a_queue_of_another_endpoint_or_none_is_not_found(queue, login):
    missing = reverse("review_dataset", kwargs={"endpoint": "local", "queue": queue.pk + 100})
    assert login("support").get(missing).status_code == 404
