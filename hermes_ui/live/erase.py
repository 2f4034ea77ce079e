"""A deleted session's id, taken out of the live events, notices and heartbeats
(``platform.erasers``).

Events are pruned within the hour anyway; an erasure does not wait for that.
"""

from __future__ import annotations

from hermes_ui.live.models import LiveEvent, LiveNotice, LiveWatch


def _events(scope, ids: set[str]):
    for event in LiveEvent.objects.filter(endpoint=scope.id):
        if any(session_id in ids for session_id, _ in event.changes):
            yield event


def _watches(scope, ids: set[str]):
    for watch in LiveWatch.objects.filter(endpoint=scope.id):
        if ids & set(watch.sessions):
            yield watch


def _notices(scope, ids: set[str]):
    """Review notices naming one of ``ids`` (deletion notices never name a session)."""
    return LiveNotice.objects.filter(endpoint=scope.id, ids__session_id__in=sorted(ids))


def held(scope, ids: list[str]) -> dict[str, int]:
    wanted = set(ids)
    return {"live_events": sum(1 for _ in _events(scope, wanted)) + _notices(scope, wanted).count()}


def erase(scope, ids: list[str]) -> dict[str, int]:
    wanted = set(ids)
    erased = 0
    for event in list(_events(scope, wanted)):
        event.changes = [pair for pair in event.changes if pair[0] not in wanted]
        event.save(update_fields=["changes"])
        erased += 1
    for notice in list(_notices(scope, wanted)):
        notice.ids = {k: v for k, v in notice.ids.items() if k != "session_id"}
        notice.save(update_fields=["ids"])
        erased += 1
    for watch in list(_watches(scope, wanted)):
        watch.sessions = [s for s in watch.sessions if s not in wanted]
        watch.save(update_fields=["sessions"])
    return {"live_events": erased}
