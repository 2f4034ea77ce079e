"""What changed between two readings of the index, and many changes folded into one.

Pure functions: the poller (``poller``) snapshots the index rows it may
change, lets the incremental sync run, and asks ``kinds`` what each row's
change was; a browser that reconnects gets ``coalesce`` of what it missed.
Only ids and these kinds ever leave the server: never a title or text.
"""

from __future__ import annotations

from collections.abc import Iterable

NEW, MESSAGES, RENAMED, CLOSED, REOPENED, GONE, CHANGED = (
    "new",
    "messages",
    "renamed",
    "closed",
    "reopened",
    "gone",
    "changed",
)
KINDS = (NEW, MESSAGES, RENAMED, CLOSED, REOPENED, GONE, CHANGED)
# The index columns compared (with the id): what a reader of a list notices.
FIELDS = ("title", "message_count", "last_active", "ended_at", "end_reason")
MAX_IDS = 200  # per event; more are counted in ``more``


def kinds(before: dict | None, after: dict, *, new: bool = False) -> list[str]:
    """How ``after`` (an index row's values) differs from ``before`` (None: not read before).

    ``new``: the row was first seen (or came back) since the last poll.
    A row the poller did not read before and that is not new changed in a way
    it cannot name (a full sweep's row far down the list): ``changed``.
    """
    if after.get("vanished_at") is not None:
        return [] if before is not None and before.get("vanished_at") is not None else [GONE]
    if new or (before is not None and before.get("vanished_at") is not None):
        return [NEW]
    if before is None:
        return [CHANGED]
    found = []
    if (before["message_count"], before["last_active"]) != (
        after["message_count"],
        after["last_active"],
    ):
        found.append(MESSAGES)
    if before["title"] != after["title"]:
        found.append(RENAMED)
    if (before["ended_at"], before["end_reason"]) != (after["ended_at"], after["end_reason"]):
        found.append(CLOSED if after["ended_at"] is not None or after["end_reason"] else REOPENED)
    return found


def coalesce(events: Iterable[tuple[list, int]]) -> tuple[list, int]:
    """Many events' ``(changes, more)`` as one: each id once, its kinds merged in order."""
    merged: dict[str, list[str]] = {}
    more = 0
    for changes, left_out in events:
        more += left_out
        for session_id, found in changes:
            have = merged.setdefault(session_id, [])
            have.extend(kind for kind in found if kind not in have)
    items = list(merged.items())
    if len(items) > MAX_IDS:
        more += len(items) - MAX_IDS
        items = items[:MAX_IDS]
    return [[session_id, found] for session_id, found in items], more
