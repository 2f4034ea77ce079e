"""Change detection against a real Hermes peer: the refresher's live round."""

from __future__ import annotations

import pytest

from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes import HermesClient
from hermes_ui.live import changes as c
from hermes_ui.live import channel
from hermes_ui.live.models import LiveEvent, LiveStatus
from hermes_ui.live.poller import Poller
from tests.support.peers import index, make

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def counting(monkeypatch):
    """Counts the list calls the client makes."""
    calls = []
    original = HermesClient.list_sessions

    def list_sessions(self, **kwargs):
        calls.append(kwargs)
        return original(self, **kwargs)

    monkeypatch.setattr(HermesClient, "list_sessions", list_sessions)
    return calls


@pytest.fixture
def live_lists(settings, live_endpoint):
    """``live_endpoint``, its transcripts read by no sync (``HERMES_INDEX_CONTENT`` off):
    the live round follows the session list, and reading every seeded transcript was
    most of each first sync."""
    settings.HERMES_INDEX_CONTENT = False
    return live_endpoint


def _changes(since: int) -> dict[str, list[str]]:
    events = channel.after("local", since)
    found, _ = c.coalesce((e["changes"], e["more"]) for e in events)
    return dict(found)


def test_nothing_is_polled_while_nobody_watches(live_lists, counting):
    endpoint = live_lists
    index(endpoint)
    counting.clear()
    assert Poller().round() == {}
    assert counting == []


def test_one_list_call_per_round_when_nothing_changed(live_lists, counting):
    endpoint = live_lists
    index(endpoint)
    for worker in range(5):  # five workers' browsers watch: still one poll
        channel.beat("local", f"w{worker}", [])
    poller = Poller()
    poller.round()
    counting.clear()
    assert poller.round() == {"local": 0}
    assert len(counting) == 1
    assert counting[0]["offset"] == 0
    assert LiveEvent.objects.count() == 0
    assert LiveStatus.objects.get(endpoint="local").error_code == ""


def test_new_session_turn_rename_and_close_are_published_once_each(live_lists):
    endpoint = live_lists
    make(endpoint, "live-a", title="first")
    index(endpoint)
    channel.beat("local", "w", [])
    poller = Poller()
    poller.round()
    mark = channel.last_id()
    client = HermesClient(endpoint)
    try:
        make(endpoint, "live-new", title="<img src=x onerror=alert(1)>")
        client.patch_session("live-a", idempotency_key=mint_key(), title="Secret rename title")
        poller.round()
        first = _changes(mark)
        assert first["live-new"] == [c.NEW]
        assert c.RENAMED in first["live-a"]
        assert LiveEvent.objects.filter(id__gt=mark).count() == 1  # one coalesced event
        mark = channel.last_id()
        client.chat("live-a", message="hello again")
        client.patch_session("live-a", idempotency_key=mint_key(), end_reason="user_closed")
        poller.round()
        second = _changes(mark)
        assert set(second["live-a"]) >= {c.MESSAGES, c.CLOSED}
        assert "live-new" not in second
        mark = channel.last_id()
        poller.round()
        assert _changes(mark) == {}  # nothing changed: nothing published
    finally:
        client.close()
    text = str(list(LiveEvent.objects.values_list("changes", flat=True)))
    assert "onerror" not in text and "Secret rename" not in text


def test_a_watched_session_below_the_first_page_is_read_by_id(live_lists, monkeypatch):
    endpoint = live_lists
    make(endpoint, "live-deep", title="deep")
    index(endpoint)
    monkeypatch.setattr("hermes_ui.index.sync.PAGE", 1)  # only the newest row is listed
    make(endpoint, "live-top", title="top")
    channel.beat("local", "w", ["live-deep"])
    poller = Poller()
    poller.round()
    mark = channel.last_id()
    client = HermesClient(endpoint)
    try:
        client.patch_session("live-deep", idempotency_key=mint_key(), end_reason="user_closed")
    finally:
        client.close()
    poller.round()
    assert c.CLOSED in _changes(mark)["live-deep"]


def test_an_unreachable_endpoint_is_recorded_as_paused(settings):
    from tests.support.peers import unreachable

    endpoint = unreachable(settings)
    settings.HERMES_ENDPOINTS = {endpoint.id: endpoint}
    channel.beat(endpoint.id, "w", [])
    Poller().round()
    assert LiveStatus.objects.get(endpoint=endpoint.id).error_code != ""


def test_events_are_pruned_after_an_hour():
    from datetime import timedelta

    from django.utils import timezone

    old = channel.publish("local", [["s", [c.NEW]]])
    LiveEvent.objects.filter(pk=old.pk).update(created_at=timezone.now() - timedelta(hours=2))
    kept = channel.publish("local", [["t", [c.NEW]]])
    assert channel.prune() == 1
    assert list(LiveEvent.objects.values_list("pk", flat=True)) == [kept.pk]


def test_a_change_another_sync_wrote_between_rounds_is_published(live_lists):
    from hermes_ui.index import sync

    make(live_lists, "live-between", title="before")
    index(live_lists)
    channel.beat("local", "w", [])
    poller = Poller()
    poller.round()
    mark = channel.last_id()
    client = HermesClient(live_lists)
    try:
        client.patch_session("live-between", idempotency_key=mint_key(), title="after")
        client.chat("live-between", message="between rounds")
    finally:
        client.close()
    assert not sync.sync(live_lists, full=False).error_code  # the periodic sync, say
    poller.round()
    assert set(_changes(mark)["live-between"]) >= {c.MESSAGES, c.RENAMED}
