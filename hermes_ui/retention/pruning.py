"""Sessions that left Hermes without anyone here deleting them: pruned, or deleted elsewhere.

Hermes releases after 0.19 prune ended sessions older than 90 days by default
(#101316), silently. The index notices such a session when a full sweep no
longer finds it (``vanished_at``); a deletion made through this dashboard
erases the session's index row, so a vanished row was removed by someone or
something else. One that had ended at least ``PRUNE_DAYS`` before it vanished
is marked "pruned by Hermes (inferred)", so nobody mistakes it for a deletion
by a person; the others "deleted outside this dashboard".
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.index.models import IndexedSession
from hermes_ui.platform.endpoints import Endpoint

PRUNE_DAYS = 90  # Hermes' default age for pruning ended sessions
SHOWN = 50


@dataclass(frozen=True)
class Gone:
    session_id: str
    source: str
    ended_at: float | None
    vanished_at: object
    pruned: bool

    @property
    def verdict(self) -> str:
        if self.pruned:
            return f"pruned by Hermes (inferred: ended {PRUNE_DAYS}+ days before it vanished)"
        return "deleted outside this dashboard"


def gone(ep: Endpoint, limit: int = SHOWN) -> list[Gone]:
    rows = (
        IndexedSession.objects.filter(**ep.scope(), vanished_at__isnull=False)
        .order_by("-vanished_at")
        .values("session_id", "source", "ended_at", "vanished_at")[:limit]
    )
    found = []
    for row in rows:
        ended = row["ended_at"]
        pruned = ended is not None and (
            row["vanished_at"].timestamp() - ended >= PRUNE_DAYS * 86400  # type: ignore[union-attr]
        )
        found.append(Gone(row["session_id"], row["source"], ended, row["vanished_at"], pruned))
    return found
