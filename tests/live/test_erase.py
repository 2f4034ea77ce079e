"""A deleted session's id leaves the live events and heartbeats (``hermes_ui.platform.erasers``)."""

import pytest

from hermes_ui.live import changes as c
from hermes_ui.live import channel, erase
from hermes_ui.live.models import LiveEvent, LiveWatch

pytestmark = pytest.mark.django_db


def test_erasing_takes_the_ids_out_of_events_and_watches(mock_endpoint):
    both = channel.publish("local", [["gone-1", [c.NEW]], ["kept", [c.RENAMED]]])
    other = channel.publish("elsewhere", [["gone-1", [c.NEW]]])  # another endpoint's
    channel.beat("local", "w", ["gone-1", "kept"])
    assert erase.held(mock_endpoint, ["gone-1"]) == {"live_events": 1}
    assert erase.erase(mock_endpoint, ["gone-1"]) == {"live_events": 1}
    assert LiveEvent.objects.get(pk=both.pk).changes == [["kept", [c.RENAMED]]]
    assert LiveEvent.objects.get(pk=other.pk).changes == [["gone-1", [c.NEW]]]
    assert LiveWatch.objects.get(endpoint="local").sessions == ["kept"]
    assert erase.held(mock_endpoint, ["gone-1"]) == {"live_events": 0}
