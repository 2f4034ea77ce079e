"""Titles in recorded results of changes on a session Hermes deleted (``platform.erasers``).

A change's idempotency record keeps its result (the session's row as the API
answered it) so a repeated form replays instead of sending again. The record
stays, ids and codes only: the title goes.
"""

from __future__ import annotations

from django.db.models import Q

from hermes_ui.audit.models import IdempotencyRecord


def erase(scope, ids: list[str]) -> dict[str, int]:
    """Drop the title from recorded results of changes on or creating these sessions."""
    records = IdempotencyRecord.objects.filter(
        Q(session_id__in=ids) | Q(result__id__in=ids), endpoint=scope.id
    )
    scrubbed = 0
    for record in records:
        if isinstance(record.result, dict) and "title" in record.result:
            record.result = {k: v for k, v in record.result.items() if k != "title"}
            record.save(update_fields=["result"])
            scrubbed += 1
    return {"change_records": scrubbed}
