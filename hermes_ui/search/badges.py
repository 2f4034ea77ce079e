"""Small marks on a session that other features own (tags, review labels), in one table.

A reader answers for a whole page of ids in a query or two; ``rows`` are the
caller's index rows by id when it holds them (the index table), else None.
Badge text is user text: templates escape it, the lineage graph too.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from django.utils.module_loading import import_string

from hermes_ui.index import archived
from hermes_ui.index.models import IndexedSession

if TYPE_CHECKING:
    from hermes_ui.platform.endpoints import Endpoint


@dataclass(frozen=True)
class Badge:
    text: str
    title: str = ""  # the tooltip: what the badge means
    colour: str = ""  # one of the palette's names (``static/css``: ``badge-<colour>``)
    kind: str = ""  # the feature that gave it ("tag", "label"), a CSS class too


Read = Callable[..., dict[str, list[Badge]]]  # (endpoint, ids, user, rows=None)
PALETTE = ("grey", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink")

# Each feature's reader, in the order rows show the badges; by dotted path, so that
# the index imports no feature.
READERS = {
    "archived": "hermes_ui.search.badges.archived_badges",
    "pinned": "hermes_ui.search.badges.pinned_badges",
    "review": "hermes_ui.review.badges.read",
    "tags": "hermes_ui.tags.marks.badges",
    "watermarks": "hermes_ui.watermarks.marks.badges",
}


@functools.cache
def readers() -> dict[str, Read]:
    """The table's readers by name, imported on first use."""
    return {name: import_string(path) for name, path in READERS.items()}


def for_sessions(
    endpoint: Endpoint, session_ids: Iterable[str], user, rows: dict[str, dict] | None = None
) -> dict[str, list[Badge]]:
    """Every reader's badges for these sessions, in the table's order."""
    ids = list(dict.fromkeys(session_ids))
    found: dict[str, list[Badge]] = {}
    if not ids:
        return found
    for read in readers().values():
        for session_id, given in read(endpoint, ids, user, rows=rows).items():
            found.setdefault(session_id, []).extend(given)
    return found


def attach(endpoint: Endpoint, rows: list[dict], user) -> list[dict]:
    """Set ``row["badges"]`` on index rows (API shape, ``id``)."""
    by_id = {row["id"]: row for row in rows}
    found = for_sessions(endpoint, by_id, user, rows=by_id)
    for row in rows:
        row["badges"] = found.get(row["id"], [])
    return rows


# The badges the index itself gives: archived on Hermes, pinned on Hermes.
def archived_badges(endpoint, ids: list[str], user, rows: dict[str, dict] | None = None):
    inferred = Badge("archived", archived.LABEL + ". " + archived.RESTORE, "grey", "archived")
    reported = Badge(
        "archived", archived.REPORTED_LABEL + " (Restore on the session page)", "grey", "archived"
    )
    if rows is None or not all(sid in rows and "listed" in rows[sid] for sid in ids):
        fields = ("session_id", "listed", "parent_session_id", "archived")
        found = IndexedSession.objects.filter(
            archived.ARCHIVED, **endpoint.scope(), session_id__in=ids
        )
        rows = {values["session_id"]: values for values in found.values(*fields)}
    return {
        sid: [reported if isinstance(rows[sid].get("archived"), bool) else inferred]
        for sid in ids
        if sid in rows and archived.is_archived(rows[sid])
    }


def pinned_badges(endpoint, ids: list[str], user, rows: dict[str, dict] | None = None):
    """A pin, where a Hermes newer than 0.19 reports one."""
    badge = Badge("pinned", "Pinned on Hermes: its list always shows it.", "blue", "pinned")
    if rows is None or not all(sid in rows and "pinned" in rows[sid] for sid in ids):
        found = IndexedSession.objects.filter(pinned=True, **endpoint.scope(), session_id__in=ids)
        rows = {sid: {"pinned": True} for sid in found.values_list("session_id", flat=True)}
    return {sid: [badge] for sid in ids if sid in rows and rows[sid].get("pinned") is True}
