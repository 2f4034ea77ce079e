"""Small marks on a session that other features own (tags, review labels), by registration.

The index table and the lineage graph show them without knowing what they
are: a feature registers a reader from ``AppConfig.ready()``::

    badges.register("tags", read)   # read(endpoint, session_ids, user) -> {id: [Badge]}

A reader answers for a whole page of ids in a query or two. Badge text is
user text: templates escape it, and the lineage graph escapes it for SVG.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_ui.endpoints import Endpoint


@dataclass(frozen=True)
class Badge:
    text: str
    title: str = ""  # the tooltip: what the badge means
    colour: str = ""  # one of the palette's names (``static/css``: ``badge-<colour>``)
    kind: str = ""  # the feature that gave it ("tag", "label"), a CSS class too


Read = Callable[["Endpoint", list[str], object], dict[str, list[Badge]]]
_registry: dict[str, Read] = {}
PALETTE = ("grey", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink")


def register(name: str, read: Read) -> None:
    _registry[name] = read


def for_sessions(endpoint: Endpoint, session_ids: Iterable[str], user) -> dict[str, list[Badge]]:
    """Every registered feature's badges for these sessions, in registration order."""
    ids = list(dict.fromkeys(session_ids))
    found: dict[str, list[Badge]] = {}
    if not ids:
        return found
    for read in _registry.values():
        for session_id, marks in read(endpoint, ids, user).items():
            found.setdefault(session_id, []).extend(marks)
    return found


def attach(endpoint: Endpoint, rows: list[dict], user) -> list[dict]:
    """Set ``row["badges"]`` on index rows (API shape, ``id``)."""
    found = for_sessions(endpoint, (row["id"] for row in rows), user)
    for row in rows:
        row["badges"] = found.get(row["id"], [])
    return rows
