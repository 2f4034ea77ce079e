"""How fresh an endpoint's index is, for the line every index-backed page shows."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import datetime

from django.utils import timezone

from hermes_ui.index import counts, sync_state
from hermes_ui.index.lease import LEASE
from hermes_ui.index.models import IndexedSession, IndexSyncState
from hermes_ui.index.pacing import pace_text, recheck_text
from hermes_ui.index.sync import PAGE
from hermes_ui.platform.endpoints import Endpoint


def age(moment: datetime | None, now: datetime | None = None) -> str:
    """A short age: "40 s ago", "3 min ago", "2 h ago", "5 days ago"."""
    if moment is None:
        return "never"
    seconds = max(0, int(((now or timezone.now()) - moment).total_seconds()))
    if seconds < 60:
        return f"{seconds} s ago"
    if seconds < 3600:
        return f"{seconds // 60} min ago"
    if seconds < 86400:
        return f"{seconds // 3600} h ago"
    days = seconds // 86400
    return f"{days} day{'s' if days != 1 else ''} ago"


def eta_text(seconds) -> str:
    if not isinstance(seconds, (int, float)):
        return ""
    return f"{int(seconds)} s" if seconds < 90 else f"{round(seconds / 60)} min"


@dataclass
class Freshness:
    endpoint_id: str
    indexed_at: datetime | None = None
    full_at: datetime | None = None
    running: bool = False
    running_full: bool = False
    progress: dict = field(default_factory=dict)
    error_code: str = ""
    generation: int = 0
    total: int = 0  # sessions indexed (deleted ones excluded)
    # The URL behind this endpoint id changed (``sync.state_for``): from where,
    # and when the fresh index started (None: it starts with the next sync).
    replaced_url: str = ""
    replaced_at: datetime | None = None
    last_pace: dict = field(default_factory=dict)  # the last finished sync's (``pacing``)
    version: str | None = None  # of the sync state, for cached counts (``counts``)

    @property
    def pace_text(self) -> str:
        """How fast the running sync calls Hermes, or how fast the last one did."""
        if self.running:
            if self.progress.get("phase") == "recheck":
                return recheck_text(self.progress.get("recheck"), running=True)
            return pace_text(self.progress.get("pace"), running=True)
        return pace_text(self.last_pace, running=False)

    @property
    def age(self) -> str:
        return age(self.indexed_at)

    @property
    def full_age(self) -> str:
        return age(self.full_at)

    @property
    def eta_text(self) -> str:
        """The time a transcript build still needs, roughly ("" before it is known)."""
        return eta_text(self.progress.get("eta"))

    @property
    def expected_calls(self) -> int | None:
        """About how many list calls a sweep takes (one list or both), when known."""
        if "recheck" in self.progress:
            return None  # a recheck sweep's list call is the incremental one; its bar counts GETs
        if self.progress.get("expected"):
            return self.progress["expected"]
        if not self.total:
            return None
        return self.progress.get("lists", 2) * max(1, math.ceil(self.total / PAGE))


def of(endpoint: Endpoint) -> Freshness:
    """Read only: a page load never starts the replacement of an old index."""
    endpoint_id = endpoint.id
    state = sync_state.stored(endpoint)
    if state is None:
        older = IndexSyncState.objects.filter(endpoint=endpoint_id).order_by("-pk").first()
        if older is None:
            return Freshness(endpoint_id)
        return Freshness(endpoint_id, replaced_url=older.base_url or "(not recorded)")
    running = state.running_since is not None and timezone.now() - state.running_since < LEASE
    at = counts.version(state)
    return Freshness(
        endpoint_id,
        indexed_at=state.last_sync_at,
        full_at=state.last_full_at,
        running=running,
        running_full=state.running_full,
        progress=state.progress or {},
        error_code=state.last_error_code,
        generation=state.generation,
        total=counts.cached(
            endpoint,
            "present",
            at,
            IndexedSession.objects.filter(**endpoint.scope(), vanished_at__isnull=True).count,
        ),
        replaced_url=state.replaced_url,
        replaced_at=state.replaced_at,
        last_pace=(state.last_report or {}).get("pace") or {},
        version=at,
    )
