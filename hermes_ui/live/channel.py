"""The database channel between the refresher and every web worker (sync functions).

Events have an increasing id; a browser resumes from the last one it saw.
Heartbeats say which endpoints (and session pages) are watched right now.
Every function here is one short database step.
"""

from __future__ import annotations

from datetime import timedelta

from django.db.models import Min
from django.utils import timezone

from hermes_ui.live import changes as c
from hermes_ui.live import notices
from hermes_ui.live.models import LiveEvent, LiveStatus, LiveWatch
from hermes_ui.platform.prepared import Prepared

KEEP = timedelta(hours=1)  # events older than this are pruned
WATCH_TTL = timedelta(seconds=15)  # a heartbeat older than this is nobody watching
MAX_WATCHED_SESSIONS = 20  # session pages per endpoint whose own row is re-read


def publish(endpoint_id: str, found: list[list], more: int = 0) -> LiveEvent | None:
    """One coalesced event (``found``: ``[[id, kinds], ...]``); None when nothing changed."""
    if not found and not more:
        return None
    found, more = c.coalesce([(found, more)])
    return LiveEvent.objects.create(
        endpoint=endpoint_id, created_at=timezone.now(), changes=found, more=more
    )


# Every page that follows live events asks it: compiled once (platform.prepared).
_LAST = Prepared(lambda: LiveEvent.objects.order_by("-id").values_list("id")[:1])


def last_id() -> int:
    top = _LAST.first()
    return top[0] if top else 0


def after(endpoint_id: str, event_id: int, limit: int = 500) -> list[dict]:
    """The endpoint's events after ``event_id``, oldest first, as frames' payloads."""
    rows = LiveEvent.objects.filter(endpoint=endpoint_id, id__gt=event_id).order_by("id")
    return [
        {"id": row.id, "changes": row.changes, "more": row.more}
        for row in rows.only("id", "changes", "more")[:limit]
    ]


def since(endpoint_id: str, event_id: int) -> dict:
    """Everything after ``event_id`` as one event, and whether some of it may be lost.

    ``reset`` is true when ``event_id`` is older than the oldest event kept
    (pruned, or another database's): the browser cannot know what changed.
    """
    events = after(endpoint_id, event_id, limit=10_000)
    found, more = c.coalesce((e["changes"], e["more"]) for e in events)
    oldest = LiveEvent.objects.aggregate(low=Min("id"))["low"]
    top = events[-1]["id"] if events else max(event_id, last_id())
    reset = event_id > 0 and (
        (oldest is not None and event_id < oldest - 1) or event_id > last_id()
    )
    return {"id": top, "changes": found, "more": more, "reset": reset}


def beat(endpoint_id: str, worker: str, sessions: list[str]) -> None:
    LiveWatch.objects.update_or_create(
        endpoint=endpoint_id,
        worker=worker,
        defaults={"seen_at": timezone.now(), "sessions": sessions[:MAX_WATCHED_SESSIONS]},
    )


def forget(endpoint_id: str, worker: str) -> None:
    LiveWatch.objects.filter(endpoint=endpoint_id, worker=worker).delete()


def watched() -> dict[str, list[str]]:
    """Endpoints a browser watches now -> the session pages open on them."""
    fresh = LiveWatch.objects.filter(seen_at__gte=timezone.now() - WATCH_TTL)
    out: dict[str, list[str]] = {}
    for endpoint_id, sessions in fresh.values_list("endpoint", "sessions"):
        have = out.setdefault(endpoint_id, [])
        have.extend(s for s in sessions if isinstance(s, str) and s not in have)
    return {ep: ids[:MAX_WATCHED_SESSIONS] for ep, ids in out.items()}


def record_poll(endpoint_id: str, error_code: str) -> None:
    LiveStatus.objects.update_or_create(
        endpoint=endpoint_id, defaults={"polled_at": timezone.now(), "error_code": error_code}
    )


def status(endpoint_id: str) -> tuple[object, str] | None:
    """``(polled_at, error_code)`` of the endpoint's last poll, None if never polled."""
    row = LiveStatus.objects.filter(endpoint=endpoint_id).first()
    return None if row is None else (row.polled_at, row.error_code)


def prune() -> int:
    now = timezone.now()
    LiveWatch.objects.filter(seen_at__lt=now - KEEP).delete()
    notices.prune(now - KEEP)
    return LiveEvent.objects.filter(created_at__lt=now - KEEP).delete()[0]
