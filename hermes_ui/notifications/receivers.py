"""What the notifications package does with the features' events: queue them, at once."""

from __future__ import annotations

from dataclasses import asdict

from django.utils import timezone

from hermes_ui.notifications import kinds
from hermes_ui.platform import events


def on_event(event: events.Event) -> None:
    """One insert into the task queue: who is told, and how, is the task's work."""
    if event.name not in kinds.BY_EVENT:
        return
    from hermes_ui.notifications import tasks

    tasks.notify.enqueue(asdict(event), timezone.now().isoformat())
