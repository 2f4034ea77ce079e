"""Every eraser of the dashboard's own copies of session data, in one table.

A feature that keeps a copy writes its eraser in its ``erase.py`` (with the
helpers of ``platform.erasers``) and adds a line here; functions are named by
dotted path so that this table imports no feature.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.utils.module_loading import import_string

if TYPE_CHECKING:
    from hermes_ui.platform.endpoints import Endpoint

Counts = dict[str, int]
Erase = Callable[["Endpoint", list[str]], Counts]


@dataclass(frozen=True)
class Eraser:
    name: str  # the first kind it counts, e.g. "turns"
    label: str  # how the result page names that kind: "chat turns"
    erase: str | Erase  # erase(scope, ids) -> counts, run in the erasure's transaction
    models: tuple[str, ...] = ()  # the models it covers ("app_label.Model")
    also: dict[str, str] = field(default_factory=dict)  # further kinds it counts: label
    held: str | Erase | None = None  # what is held now, without erasing
    # Also given ids whose cached view may show an erased one (a compression root
    # resolves to its tip): for caches keyed by the id that shows it.
    related: bool = False

    @property
    def kinds(self) -> dict[str, str]:
        return {self.name: self.label, **self.also}

    def run(self, scope: Endpoint, ids: list[str]) -> Counts:
        return _function(self.erase)(scope, ids)

    def count(self, scope: Endpoint, ids: list[str]) -> Counts:
        return {} if self.held is None else _function(self.held)(scope, ids)


# The result page lists the kinds in this order.
ERASERS = (
    Eraser("transcripts", "cached transcripts", "hermes_ui.sessions.erase.erase", related=True),
    Eraser(
        "index_rows",
        "index rows",
        "hermes_ui.index.erase.erase_rows",
        models=("index.IndexedSession",),
        held="hermes_ui.index.erase.held_rows",
    ),
    Eraser(
        "content_messages",
        "searchable transcript messages",
        "hermes_ui.index.erase.erase_content",
        models=("index.ContentSession", "index.ContentMessage"),
        held="hermes_ui.index.erase.held_content",
    ),
    Eraser(
        "forks",
        "fork records",
        "hermes_ui.index.erase.erase_forks",
        models=("index.KnownFork",),
        held="hermes_ui.index.erase.held_forks",
    ),
    Eraser("drawings", "cached lineage drawings", "hermes_ui.lineage.erase.erase_drawings"),
    Eraser(
        "change_records",
        "titles in recorded change results",
        "hermes_ui.changes.erase.erase",
        models=("audit.IdempotencyRecord",),
    ),
    Eraser(
        "turns",
        "chat turns",
        "hermes_ui.chat.erase.erase",
        models=("chat.Turn", "chat.TurnEvent"),
        also={"turn_events": "chat turn events", "relay_streams": "relayed turn streams"},
        held="hermes_ui.chat.erase.held",
    ),
    Eraser(
        "verdicts",
        "review verdicts",
        "hermes_ui.compare.erase.erase",
        models=("compare.Verdict",),
        held="hermes_ui.compare.erase.held",
    ),
    Eraser(
        "review_items",
        "review queue items",
        "hermes_ui.review.erase.erase",
        models=("review.Item", "review.Label", "review.Note", "review.Correction"),
        also={"labels": "review labels", "notes": "review notes", "corrections": "corrections"},
        held="hermes_ui.review.erase.held",
    ),
    Eraser(
        "usage_bookings",
        "usage bookings",
        "hermes_ui.usage.erase.erase",
        models=("usage.Booking",),
        held="hermes_ui.usage.erase.held",
    ),
    Eraser(
        "session_tags",
        "session tags",
        "hermes_ui.tags.erase.erase",
        models=("tags.SessionTag",),
        held="hermes_ui.tags.erase.held",
    ),
    Eraser(
        "watermarks",
        "read watermarks",
        "hermes_ui.watermarks.erase.erase",
        models=("watermarks.Watermark",),
        held="hermes_ui.watermarks.erase.held",
    ),
    Eraser(
        "retention_runs",
        "retention run records",
        "hermes_ui.retention.erase.erase",
        models=("retention.RetentionRun",),
        held="hermes_ui.retention.erase.held",
    ),
    Eraser(
        "live_events",
        "live update events",
        "hermes_ui.live.erase.erase",
        models=("live.LiveEvent", "live.LiveWatch", "live.LiveNotice"),
        held="hermes_ui.live.erase.held",
    ),
    Eraser(
        "shares",
        "share links and their snapshots",
        "hermes_ui.shares.erase.erase",
        models=("shares.Share",),
        also={"share_lineage_entries": "lineage entries in other share links"},
        held="hermes_ui.shares.erase.held",
    ),
    Eraser(
        "notices",
        "notifications waiting to be mailed",
        "hermes_ui.notifications.erase.erase",
        models=("notifications.Notice",),
        held="hermes_ui.notifications.erase.held",
    ),
    Eraser(
        "webhook_deliveries",
        "finished webhook deliveries",
        "hermes_ui.webhooks.erase.erase",
        models=("webhooks.Delivery",),
        held="hermes_ui.webhooks.erase.held",
    ),
    Eraser(
        "task_records",
        "finished background task records",
        "hermes_ui.background.workers.erase.erase",
        models=("django_tasks_database.DBTaskResult",),
        held="hermes_ui.background.workers.erase.held",
    ),
)


def all_erasers() -> tuple[Eraser, ...]:
    """The table, checked: no two erasers count the same kind."""
    seen: dict[str, str] = {}
    for eraser in ERASERS:
        for kind in eraser.kinds:
            if seen.setdefault(kind, eraser.name) != eraser.name:
                raise ValueError(f"eraser {eraser.name!r} counts {kind!r}, as {seen[kind]!r} does")
    return ERASERS


def kinds() -> dict[str, str]:
    """Every kind an eraser counts, with its label, in the table's order."""
    return {kind: label for eraser in all_erasers() for kind, label in eraser.kinds.items()}


def _function(path: str | Erase) -> Erase:
    return import_string(path) if isinstance(path, str) else path
