"""Sessions that left Hermes without anyone here deleting them: pruned, or deleted elsewhere."""

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
