"""Fixtures of the deletion tests: a settable clock (the fake provider is ``fake_hermes``)."""

from datetime import timedelta

import pytest
from django.utils import timezone

from hermes_ui.deletion import clock as deletion_clock


class FakeClock:
    def __init__(self):
        self.at = timezone.now()

    def __call__(self):
        return self.at

    def advance(self, **delta):
        self.at += timedelta(**delta)


@pytest.fixture
def clock(monkeypatch):
    """The deletion feature's clock, moved by hand: ``clock.advance(minutes=16)``."""
    fake = FakeClock()
    monkeypatch.setattr(deletion_clock, "now", fake)
    return fake
