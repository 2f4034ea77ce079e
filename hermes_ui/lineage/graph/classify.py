"""What kind of row a session is, from the fields the API exposes.

The API hides ``model_config`` (where Hermes keeps its ``_branched_from`` and
``_delegate_from`` markers), so the dashboard infers the edge kind from the
parent's close reason, exactly as the provider's own legacy heuristics do:

* continuation: the parent ended with ``compression``;
* branch: the parent ended with ``branched`` and the child started at or
  after that, or the dashboard itself forked the child (API forks of an
  already-ended parent leave no visible trace otherwise), or the child is
  visible in the default list (the provider only admits a child there when
  it carries the branch marker or passes the legacy branch test);
* delegate: any other child (real subagents have source ``subagent``);
* root: no parent; an *orphan* is a root whose parent was deleted, which only
  an index that remembers the old parent id can tell.
"""

from collections.abc import Iterable

ROOT = "root"
BRANCH = "branch"
CONTINUATION = "continuation"
DELEGATE = "delegate"
ORPHAN = "orphan"
KINDS = (ROOT, BRANCH, CONTINUATION, DELEGATE, ORPHAN)

LABELS = {
    ROOT: "root",
    BRANCH: "branch",
    CONTINUATION: "compression continuation",
    DELEGATE: "delegate",
    ORPHAN: "orphan (parent deleted)",
}

# Sources the provider itself never treats as a compression continuation
# (``get_compression_tip`` skips ``tool`` rows; ``subagent`` rows carry the
# delegate marker it also skips).
SPAWNED_SOURCES = frozenset({"subagent", "tool"})


def edge_kind(
    child: dict,
    parent: dict | None,
    *,
    forked_by_us: bool = False,
    visible: bool = False,
) -> str:
    """The kind of the edge from ``parent`` to ``child``; ``parent`` may be unknown.

    ``visible`` says the child was seen in the default (child-filtered) list.
    Only a positive sighting counts: an unknown visibility is not evidence.
    """
    if not child.get("parent_session_id"):
        return ROOT
    if forked_by_us or visible:
        return BRANCH
    if child.get("source") in SPAWNED_SOURCES:
        # Real delegates are written with source "subagent"; one spawned before
        # its parent was later compressed or branched must not pass for a
        # continuation or a branch.
        return DELEGATE
    if parent is None:
        # A parent we cannot read: the child is certainly not a root, and the
        # provider only cascades delegates, so "branch" is the safe default.
        return BRANCH
    reason = parent.get("end_reason")
    if reason == "compression":
        return CONTINUATION
    if reason == "branched" and _started_after_end(child, parent):
        return BRANCH
    return DELEGATE


def is_orphan(row: dict, known_gone: Iterable[str]) -> bool:
    """A root whose previously indexed parent has since vanished.

    The provider clears ``parent_session_id`` on the branches and
    continuations of a deleted session, so the row alone looks like any root;
    ``former_parent_id`` is what the index remembered before the parent went.
    """
    former = row.get("former_parent_id")
    return not row.get("parent_session_id") and bool(former) and former in set(known_gone)


def node_kind(
    row: dict,
    parent: dict | None,
    *,
    forked_by_us: bool = False,
    visible: bool = False,
    known_gone: Iterable[str] = (),
) -> str:
    """The kind of ``row`` itself: its incoming edge, or root/orphan without one."""
    if not row.get("parent_session_id"):
        return ORPHAN if is_orphan(row, known_gone) else ROOT
    return edge_kind(row, parent, forked_by_us=forked_by_us, visible=visible)


def kinds_of(
    rows: Iterable[dict],
    *,
    forked_ids: Iterable[str] = (),
    known_gone: Iterable[str] = (),
) -> dict[str, str]:
    """Every row's kind, reading ``visible_in_default_list`` and ``former_parent_id``."""
    by_id = {row["id"]: row for row in rows}
    forked, gone = set(forked_ids), set(known_gone)
    return {
        row_id: node_kind(
            row,
            by_id.get(row.get("parent_session_id") or ""),
            forked_by_us=row_id in forked,
            visible=bool(row.get("visible_in_default_list")),
            known_gone=gone,
        )
        for row_id, row in by_id.items()
    }


def _started_after_end(child: dict, parent: dict) -> bool:
    started, ended = child.get("started_at"), parent.get("ended_at")
    if started is None or ended is None:
        return True
    try:
        return float(started) >= float(ended)
    except (TypeError, ValueError):
        return True
