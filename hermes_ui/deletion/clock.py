"""The deletion feature's clock.

Approvals expire after 15 minutes. Every decision about time in this package
goes through ``now()`` so tests replace this one function (monkeypatch
``hermes_ui.deletion.clock.now``) instead of sleeping.
"""

from datetime import datetime

from django.utils import timezone


def now() -> datetime:
    return timezone.now()
