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
    "archived": "hermes_ui.index.archived.read_badges",
    "pinned": "hermes_ui.index.archived.pinned_badges",
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
