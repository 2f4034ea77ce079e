"""The lineage picture of one session: index rows -> tree -> SVG or list.

Glue between the index (Django) and the pure lineage package. The current
session is re-read live first (one cheap ``session_get``), so the picture is
exact about the session the reader is looking at even between syncs; if
Hermes cannot be reached, the indexed rows are drawn and the page says so.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

from django.conf import settings

from hermes_ui.access.rules import access_of
from hermes_ui.hermes import HermesError
from hermes_ui.hermes import errors as e
from hermes_ui.index import sync
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.lineage import render
from hermes_ui.lineage.graph import display as d
from hermes_ui.lineage.graph import graph, totals
from hermes_ui.lineage.graph.classify import (
    CONTINUATION,
    KINDS,
    ORPHAN,
    SPAWNED_SOURCES,
    kinds_of,
)
from hermes_ui.lineage.graph.tip import chain_of, resume_target
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import badges, queries
from hermes_ui.web import links

HIDDEN = "hidden"  # the mark of a row the person may not open (``_mask_hidden``)
# Stand-in ids hold braces, which no routable Hermes id does: never a real id.
_STAND_IN = "{hidden}-%d"
# What a hidden row keeps: only what decides edge kinds and the live tip.
_SHAPE_FIELDS = (
    "started_at",
    "ended_at",
    "end_reason",
    "last_active",
    "visible_in_default_list",
)
PAGE_BUDGET = 120  # drawn nodes before delegate fan-outs fold on the lineage page
PANEL_BUDGET = 40  # ... and in the session page's panel
PLURALS = {
    "root": "roots",
    "branch": "branches",
    "continuation": "continuations",
    "delegate": "delegates",
    "orphan": "orphans",
}


@dataclass
class Picture:
    session_id: str
    root_id: str
    tip_id: str
    chain: list[str]
    display: d.Display
    kind_counts: list  # (kind, count, label)
    svg: str | None = None
    from_cache: bool = False
    fallback: str = ""  # why the list is shown instead of a drawing
    live_error: HermesError | None = None
    truncated: bool = False
    entries: list = field(default_factory=list)
    # Where session_messages actually reads from: beyond the compression tip
    # when Hermes walks into an unmarked API fork (see tip.resume_target).
    transcript_id: str = ""
    # Tokens and cost from the index: the whole tree, and the compression
    # chain holding the current session (root to tip).
    tree_total: totals.Total = field(default_factory=totals.Total)
    chain_total: totals.Total = field(default_factory=totals.Total)
    # Stand-ins of the sessions this person may not open (``_mask_hidden``).
    hidden_ids: frozenset[str] = frozenset()

    @property
    def transcript_elsewhere(self) -> bool:
        return bool(self.transcript_id) and self.transcript_id != self.tip_id

    @property
    def current_row(self) -> dict:
        return next((n.row for n in self.display.nodes() if n.id == self.session_id), {})

    @property
    def alone(self) -> bool:
        return self.display.total == 1 and not self.display.root.ghost

    @property
    def tip_hidden(self) -> bool:
        """The live tip is a session this person may not open."""
        return self.tip_id in self.hidden_ids

    @property
    def root_hidden(self) -> bool:
        return self.root_id in self.hidden_ids

    @property
    def transcript_hidden(self) -> bool:
        return self.transcript_id in self.hidden_ids

    @property
    def openable_nodes(self) -> list:
        """The nodes this person may open (for pickers such as "Compare…")."""
        return [n for n in self.display.nodes() if not n.ghost and not n.row.get(HIDDEN)]

    @property
    def resolves_elsewhere(self) -> bool:
        return self.tip_id != self.session_id


def cache_dir() -> Path:
    return Path(settings.DATA_DIR) / "lineage-svg"


def for_session(
    endpoint: Endpoint,
    session_id: str,
    *,
    expanded: frozenset[str] = frozenset(),
    budget: int = PAGE_BUDGET,
    live: bool = True,
    draw: bool = True,
    preferred: frozenset[str] = frozenset(),
    user=None,
) -> Picture:
    """Raises ``HermesError`` when the session does not exist (or cannot be read at all).

    ``preferred``: sessions a reviewer's verdict preferred, marked in the drawing.
    ``user``: who looks; other features' badges (``search.badges``) are read for them.
    """
    live_error = None
    if live:
        try:
            sync.refresh_now(endpoint, session_id)
        except e.NotFound:
            raise
        except HermesError as error:
            live_error = error
    found = queries.lineage(endpoint, session_id)
    if found is None:
        raise live_error or e.NotFound(
            "This session is not in the index.", code="session_not_found", operation="session_get"
        )
    alias = _mask_hidden(endpoint, found, user)
    if session_id in alias:  # the door lets no one this far; never draw it regardless
        raise e.NotFound(
            "This session is not in the index.", code="session_not_found", operation="session_get"
        )
    for row in badges.attach(endpoint, found.rows, user):
        row["marks"] = tuple(badge.text for badge in row.pop("badges"))
    tree = Tree(found.rows)
    _add_subtree_totals(tree, found.root_id)
    formers = {row["former_parent_id"] for row in found.rows if row.get("former_parent_id")}
    still_there = set(
        queries.present(endpoint)
        .filter(session_id__in=formers)
        .values_list("session_id", flat=True)
    )
    forked = {alias.get(sid, sid) for sid in forked_child_ids(endpoint)}
    kinds = kinds_of(found.rows, forked_ids=forked, known_gone=formers - still_there)
    chain = chain_of(tree, session_id)
    # Only a session in a compression chain has a tip worth pointing at.
    in_chain = len(chain) > 1 or kinds.get(session_id) == CONTINUATION
    root = tree.get(found.root_id) or {}
    orphaned = kinds.get(found.root_id) == ORPHAN
    shown = d.build(
        tree,
        kinds,
        root_id=found.root_id,
        current_id=session_id,
        tip_id=chain[-1] if in_chain else "",
        expanded=expanded,
        threshold=settings.HERMES_LINEAGE_FOLD_DELEGATES,
        budget=budget,
        former_parent_id=root.get("former_parent_id") if orphaned else None,
    )
    for group in shown.groups:
        folded = totals.Total()
        for member in group.member_ids:
            folded += tree.rows[member].get("usage") or totals.Total()
        group.usage_text = f"Folded: {folded.describe()}"
    counts = [
        (kind, n, PLURALS[kind] if n != 1 else kind)
        for kind in KINDS
        if (n := sum(1 for k in kinds.values() if k == kind))
    ]
    picture = Picture(
        session_id,
        found.root_id,
        chain[-1],
        chain,
        shown,
        counts,
        live_error=live_error,
        truncated=found.truncated,
        transcript_id=resume_target(tree, session_id),
        tree_total=totals.of_rows(found.rows),
        chain_total=totals.of_rows(
            tree.rows[i] for i in chain_of(tree, totals.chain_root(tree, kinds, session_id))
        ),
        hidden_ids=frozenset(alias.values()),
    )
    url_for = _session_urls(endpoint.id)
    if draw:
        _draw(picture, endpoint, expanded, url_for, preferred)
    picture.entries = shown.entries()
    for entry in picture.entries:
        item = entry.item
        if isinstance(item, d.Group):
            item.url = lineage_url(endpoint.id, session_id, expanded | {item.parent_id})
        elif not item.ghost and not item.row.get(HIDDEN):
            item.url = url_for(item.id)
    return picture


def _mask_hidden(endpoint: Endpoint, found, user) -> dict[str, str]:
    """Replace every session ``user`` may not open by an anonymous stand-in.

    The one rule (``access_of(user).sees``) decides per row, by its source. A
    hidden row keeps its place in the tree (its edges, its kind, which child is
    the live tip) but loses its id, title, counts and usage: it becomes
    ``{hidden}-N`` with nothing that names it, so no drawing, list, tooltip or
    link can show it. Returns the real id -> stand-in map (empty: all visible).
    ``user=None`` is the dashboard itself (no person looks): nothing is hidden.
    """
    if user is None:
        return {}
    access = access_of(user)
    if access.everything:
        return {}
    alias: dict[str, str] = {}
    for row in found.rows:
        if not access.sees(endpoint.id, row.get("source")):
            alias[row["id"]] = _STAND_IN % (len(alias) + 1)
    if not alias:
        return alias
    for index, row in enumerate(found.rows):
        parent = row.get("parent_session_id")
        if row["id"] in alias:
            # Only what shapes the tree stays: no title, id, counts, usage or former parent.
            row = found.rows[index] = {
                "id": alias[row["id"]],
                HIDDEN: True,
                "source": row.get("source") if row.get("source") in SPAWNED_SOURCES else None,
                **{field: row.get(field) for field in _SHAPE_FIELDS},
            }
        row["parent_session_id"] = alias.get(parent, parent) if parent else parent
    found.root_id = alias.get(found.root_id, found.root_id)
    return alias


def _add_subtree_totals(tree: Tree, root_id: str) -> None:
    """``row["usage"]``: the tokens and cost of each session's subtree, for the graph's
    tooltips and the list's entries (a leaf's subtree is itself)."""
    for session_id, total in totals.subtrees(tree, root_id).items():
        row = tree.rows[session_id]
        row["usage"] = total
        row["usage_text"] = ("Subtree: " if total.sessions > 1 else "") + total.describe()


def _session_urls(endpoint_id: str):
    """``links.session_url`` for one endpoint, memoised: a picture links each node twice."""
    return functools.lru_cache(maxsize=None)(
        lambda session_id: links.session_url(endpoint_id, session_id)
    )


def _draw(
    picture: Picture,
    endpoint: Endpoint,
    expanded: frozenset[str],
    url_for,
    preferred: frozenset[str] = frozenset(),
) -> None:
    if picture.alone:
        return
    if picture.display.size > settings.HERMES_LINEAGE_MAX_NODES:
        picture.fallback = (
            f"This lineage has {picture.display.size:,} nodes even with delegates folded, more "
            f"than the {settings.HERMES_LINEAGE_MAX_NODES:,} the dashboard draws; here it is as "
            "a list."
        )
        return
    source = graph.to_dot(
        picture.display,
        url_for=url_for,
        expand_url_for=lambda parent: lineage_url(
            endpoint.id, picture.session_id, expanded | {parent}
        ),
        preferred=preferred,
    )
    rendered = render.render(source, dot_path=settings.HERMES_DOT, cache_dir=cache_dir())
    if rendered.error:
        picture.fallback = f"{rendered.error} Here is the lineage as a list."
        return
    picture.svg, picture.from_cache = rendered.svg, rendered.from_cache


def lineage_url(endpoint_id: str, session_id: str, expanded=frozenset(), view: str = "") -> str:
    url = links.session_url(endpoint_id, session_id, "lineage_page")
    query = [("expand", parent) for parent in sorted(expanded)]
    if view:
        query.append(("as", view))
    if not query:
        return url
    return url + ("&" if "?" in url else "?") + urlencode(query)
