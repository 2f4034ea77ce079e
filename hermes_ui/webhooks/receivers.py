"""What the webhooks package does with the features' events."""

from __future__ import annotations

from django.utils import timezone

from hermes_ui.platform import events


def on_event(event: events.Event) -> None:
    if event.name not in events.PUBLIC:
        return
    from hermes_ui.webhooks import tasks

    # One insert into the task queue; the deliveries are made by the task.
    tasks.fan_out.enqueue(
        event.name, event.endpoint, event.ids, event.counts, timezone.now().isoformat()
    )
