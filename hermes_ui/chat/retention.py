"""Turn retention: after ``HERMES_UI_TURN_RETENTION_DAYS`` a turn keeps only its metadata.

A turn's record is what makes a double click, a reload or a second tab safe,
and its events let a reconnect replay the stream; neither needs the text
once the turn is weeks old, while the text is user data (messages, system
messages, answers, tool arguments). So old turns lose their message, system
message, answer and error message, and their events lose their payloads;
state, counts, tokens, timestamps and ids stay.

The ``turn-purge`` round runs ``purge``; ``manage.py purge_turns`` runs it by
hand or from cron.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from hermes_ui.chat.models import Turn, TurnEvent
from hermes_ui.platform import sqlite_wipe

_TEXT = {"message": "", "system_message": "", "answer": "", "error_message": ""}
_PURGED = Q(**_TEXT)


def cutoff(now: datetime | None = None) -> datetime:
    """Turns created before this moment keep no text."""
    return (now or timezone.now()) - timedelta(days=settings.HERMES_UI_TURN_RETENTION_DAYS)


def purge(now: datetime | None = None) -> dict[str, int]:
    """Remove the text of every turn older than the retention period; counts of rows changed.

    Idempotent: rows already purged are not written again.
    """
    before = cutoff(now)
    with transaction.atomic():
        turns = Turn.objects.filter(created_at__lt=before).exclude(_PURGED).update(**_TEXT)
        events = (
            TurnEvent.objects.filter(turn__created_at__lt=before).exclude(data={}).update(data={})
        )
    if turns or events:
        # The overwritten text must not stay in SQLite's WAL (see sqlite_wipe).
        sqlite_wipe.checkpoint()
    return {"turns": turns, "events": events}
