"""Moving a user's watermark when they open a session page (``web.signals.session_viewed``).

The count kept is Hermes' own ``message_count`` of the session row just read
(the figure the index row holds, so the two compare like with like); the
messages shown stand in when Hermes gave none. The receiver is one upsert
in a savepoint and never raises: the page is already read, and a watermark
that did not move only shows "new" once too often.
"""

from __future__ import annotations

import logging

from django.db import transaction
from django.utils import timezone

from hermes_ui.watermarks.models import Watermark

log = logging.getLogger(__name__)


def moved(sender, *, request, endpoint, session_id, session, message_count, **kwargs) -> None:
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return
    count = getattr(session, "message_count", None)
    try:
        with transaction.atomic():
            look(user, endpoint, session_id, message_count if count is None else count)
    except Exception as exc:  # never into the page; the error's kind and ids only in the log
        log.warning(
            "watermark not moved endpoint=%s user=%s error=%s",
            endpoint.id,
            user.pk,
            type(exc).__name__,
        )


def look(user, endpoint, session_id: str, message_count: int) -> None:
    """Upsert in one statement (SQLite and PostgreSQL: ``ON CONFLICT … DO UPDATE``)."""
    Watermark.objects.bulk_create(
        [
            Watermark(
                user=user,
                **endpoint.scope(),
                session_id=session_id,
                message_count=max(0, int(message_count or 0)),
                seen_at=timezone.now(),
            )
        ],
        update_conflicts=True,
        unique_fields=["user", "endpoint", "endpoint_fp", "session_id"],
        update_fields=["message_count", "seen_at"],
    )
