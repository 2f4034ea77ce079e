"""What kind of row a session is, from the fields the API exposes.

The API hides ``model_config`` (where Hermes keeps its ``_branched_from`` and
``_delegate_from`` markers), so the dashboard infers the edge kind from the
parent's close reason, exactly as the provider's own legacy heuristics do:

* continuation: the parent ended with ``compression``;
* branch: the parent ended with ``branched`` and the child started at or
  after that, or the dashboard itself forked the child (API forks of an
  already-ended parent leave no visible trace otherwise);
* delegate: any other child (real subagents have source ``subagent``);
* root: no parent; an *orphan* is a root whose parent was deleted, which only
  an index that remembers the old parent id can tell.
"""

ROOT = "root"
BRANCH = "branch"
CONTINUATION = "continuation"
DELEGATE = "delegate"
ORPHAN = "orphan"

LABELS = {
    ROOT: "root",
    BRANCH: "branch",
    CONTINUATION: "compression continuation",
    DELEGATE: "delegate",
    ORPHAN: "orphan (parent deleted)",
}


def edge_kind(child: dict, parent: dict | None, *, forked_by_us: bool = False) -> str:
    """The kind of the edge from ``parent`` to ``child``; ``parent`` may be unknown."""
    if not child.get("parent_session_id"):
        return ROOT
    if forked_by_us:
        return BRANCH
    if parent is None:
        # A parent we cannot read: the child is certainly not a root, and the
        # provider only cascades delegates, so "delegate" is the safe default.
        return DELEGATE if child.get("source") == "subagent" else BRANCH
    reason = parent.get("end_reason")
    if reason == "compression":
        return CONTINUATION
    if child.get("source") == "subagent":
        # Real delegates are written with source "subagent"; one spawned before
        # its parent was later branched must not pass for a branch.
        return DELEGATE
    if reason == "branched" and _started_after_end(child, parent):
        return BRANCH
    return DELEGATE


def _started_after_end(child: dict, parent: dict) -> bool:
    started, ended = child.get("started_at"), parent.get("ended_at")
    if started is None or ended is None:
        return True
    try:
        return float(started) >= float(ended)
    except (TypeError, ValueError):
        return True
