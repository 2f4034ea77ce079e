"""Small marks on a session that other features own (tags, review labels), by registration.

The index table and the lineage graph show them without knowing what they
are: a feature registers a reader from ``AppConfig.ready()``::

    badges.register("tags", read)   # read(endpoint, session_ids, user) -> {id: [Badge]}

A reader answers for a whole page of ids in a query or two. Badge text is
user text: templates escape it, and the lineage graph escapes it for SVG.

A reader registered with ``takes_rows=True`` is also given ``rows``: the
index rows (API shape, by id) when the caller has them (the index table),
else None. The "new" badge then compares with the row's ``message_count``
instead of reading the index rows again.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hermes_ui.platform.endpoints import Endpoint


@dataclass(frozen=True)
class Badge:
    text: str
    title: str = ""  # the tooltip: what the badge means
    colour: str = ""  # one of the palette's names (``static/css``: ``badge-<colour>``)
    kind: str = ""  # the feature that gave it ("tag", "label"), a CSS class too


Read = Callable[..., dict[str, list[Badge]]]  # (endpoint, ids, user[, rows=])
_registry: dict[str, tuple[Read, bool]] = {}
PALETTE = ("grey", "red", "orange", "yellow", "green", "teal", "blue", "purple", "pink")


def register(name: str, read: Read, *, takes_rows: bool = False) -> None:
    _registry[name] = (read, takes_rows)


def for_sessions(
    endpoint: Endpoint, session_ids: Iterable[str], user, rows: dict[str, dict] | None = None
) -> dict[str, list[Badge]]:
    """Every registered feature's badges for these sessions, in registration order;
    ``rows``: their index rows by id, when the caller holds them."""
    ids = list(dict.fromkeys(session_ids))
    found: dict[str, list[Badge]] = {}
    if not ids:
        return found
    for read, takes_rows in _registry.values():
        marks = read(endpoint, ids, user, rows=rows) if takes_rows else read(endpoint, ids, user)
        for session_id, given in marks.items():
            found.setdefault(session_id, []).extend(given)
    return found


def attach(endpoint: Endpoint, rows: list[dict], user) -> list[dict]:
    """Set ``row["badges"]`` on index rows (API shape, ``id``)."""
    by_id = {row["id"]: row for row in rows}
    found = for_sessions(endpoint, by_id, user, rows=by_id)
    for row in rows:
        row["badges"] = found.get(row["id"], [])
    return rows
