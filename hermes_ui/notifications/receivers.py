"""What the notifications package does with the features' events: queue them, at once."""

from __future__ import annotations

from dataclasses import asdict

from django.utils import timezone

from hermes_ui.notifications import kinds
from hermes_ui.platform import events, task_rounds

_rounds_started = False


def on_event(event: events.Event) -> None:
    """One insert into the task queue: who is told, and how, is the task's work."""
    if event.name not in kinds.BY_EVENT:
        return
    from hermes_ui.notifications import tasks

    tasks.notify.enqueue(asdict(event), timezone.now().isoformat())
    _ensure_rounds()


def _ensure_rounds() -> None:
    global _rounds_started
    if not _rounds_started:
        _rounds_started = start_rounds()


def start_rounds(**kwargs) -> bool:
    from hermes_ui.notifications import tasks

    digests = task_rounds.ensure(tasks.digest_round)
    tokens = task_rounds.ensure(tasks.token_round)
    return task_rounds.ensure(tasks.waiting_round) and digests and tokens
