"""What the webhooks package does with the features' events."""

from __future__ import annotations

from django.utils import timezone

from hermes_ui.platform import events, task_rounds

_round_started = False


def on_event(event: events.Event) -> None:
    if event.name not in events.PUBLIC:
        return
    from hermes_ui.webhooks import tasks

    # One insert into the task queue; the deliveries are made by the task.
    tasks.fan_out.enqueue(
        event.name, event.endpoint, event.ids, event.counts, timezone.now().isoformat()
    )
    _ensure_round()


def _ensure_round() -> None:
    global _round_started
    if not _round_started:
        from hermes_ui.webhooks import tasks

        _round_started = task_rounds.ensure(tasks.sweep)


def start_round(**kwargs) -> None:
    """After ``migrate``: the recovery round is waiting in the queue."""
    from hermes_ui.webhooks import tasks

    task_rounds.ensure(tasks.sweep)
