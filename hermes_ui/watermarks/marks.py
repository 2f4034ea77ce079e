"""The index's view of watermarks: the ``new:`` filter and the "new" badge.

A session is new for a user when they opened its page before and the index
row now counts more messages than it had then. A session the user never
opened is not new (there is no look to compare with): ``new:yes`` lists what
changed since you looked, not everything you have not read; ``new:no`` is
everything else, never-opened sessions included.
"""

from __future__ import annotations

from django.db.models import Exists, OuterRef, Q

from hermes_ui.index import queries
from hermes_ui.index.badges import Badge
from hermes_ui.watermarks.models import Watermark

HELP = "new:yes sessions with messages since you last opened them (new:no the others)"
_YES = {"yes", "true", "1", "y"}
_NO = {"no", "false", "0", "n"}
CHUNK = 500


def parse(text: str) -> bool:
    lowered = text.lower()
    if lowered not in _YES | _NO:
        raise ValueError(f"takes yes or no (not {text!r}).")
    return lowered in _YES


def sessions(endpoint, wanted: bool, user) -> Q:
    if user is None or not user.is_authenticated:
        return Q(pk__in=[]) if wanted else ~Q(pk__in=[])
    mine = Watermark.objects.filter(user=user, **endpoint.scope())
    # Drive from the user's few watermarks (``IN``), then compare counts per row.
    newer = Q(session_id__in=mine.values("session_id")) & Q(
        Exists(
            mine.filter(
                session_id=OuterRef("session_id"), message_count__lt=OuterRef("message_count")
            )
        )
    )
    return newer if wanted else ~newer


def badges(endpoint, ids: list[str], user) -> dict[str, list[Badge]]:
    if user is None or not user.is_authenticated:
        return {}
    found: dict[str, list[Badge]] = {}
    for start in range(0, len(ids), CHUNK):
        chunk = ids[start : start + CHUNK]
        seen = dict(
            Watermark.objects.filter(
                user=user, **endpoint.scope(), session_id__in=chunk
            ).values_list("session_id", "message_count")
        )
        if not seen:
            continue
        now = queries.present(endpoint).filter(session_id__in=list(seen))
        for session_id, count in now.values_list("session_id", "message_count"):
            more = (count or 0) - seen[session_id]
            if more > 0:
                title = f"{more} message{'s' if more != 1 else ''} since you last opened it"
                found[session_id] = [Badge(f"new {more}", title, "blue", "new")]
    return found
