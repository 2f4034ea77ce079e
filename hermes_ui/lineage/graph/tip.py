"""The live tip of a compression chain, resolved the way the provider resolves it.

Mirrors ``hermes_state.SessionDB.get_compression_tip`` (hermes-agent 0.19.0),
which ``session_messages`` uses to pick the transcript it returns: from the
given session, while the current row ended with ``compression``, step to
its best continuation candidate. Candidates are its children except those
carrying the branch or delegate marker and ``tool`` rows; the best is the one
itself compressed, else a still-open one, else any, then by latest activity
(``last_active`` is the provider's COALESCE of the newest message time and
the start time), then start time, then id, all descending.

The markers are hidden from the API, so two sightings stand in for them:
a child visible in the default list carries the branch marker (the only way
a child of a compressed parent gets listed), and a ``subagent`` row carries
the delegate marker. A fork made through the API carries no marker at all,
so the provider may resolve into one, and so does this function: the
point is to show where Hermes will actually resume.
"""

from hermes_ui.lineage.graph.classify import SPAWNED_SOURCES
from hermes_ui.lineage.graph.tree import Tree

_MAX_STEPS = 100  # the provider's own bound


def compression_tip(tree: Tree, session_id: str) -> str:
    return chain_of(tree, session_id)[-1]


def chain_of(tree: Tree, session_id: str) -> list[str]:
    """The ids from ``session_id`` to its tip, in order."""
    chain = [session_id]
    for _ in range(_MAX_STEPS):
        step = next_continuation(tree, chain[-1])
        if step is None or step in chain:
            break
        chain.append(step)
    return chain


def next_continuation(tree: Tree, session_id: str) -> str | None:
    """The continuation the provider would step to from ``session_id``, if any."""
    row = tree.get(session_id)
    if row is None or row.get("end_reason") != "compression":
        return None
    candidates = [
        tree.rows[child] for child in tree.children_of(session_id) if _candidate(tree.rows[child])
    ]
    return _best(candidates)["id"] if candidates else None


def _candidate(row: dict) -> bool:
    return not row.get("visible_in_default_list") and row.get("source") not in SPAWNED_SOURCES


def _best(rows: list[dict]) -> dict:
    # Python's sort is stable: sort by the last key first, the first key last.
    ordered = sorted(rows, key=lambda r: r["id"], reverse=True)
    ordered.sort(key=lambda r: _number(r.get("started_at")), reverse=True)
    ordered.sort(key=lambda r: _number(_activity(r)), reverse=True)
    ordered.sort(key=_closure_rank)
    return ordered[0]


def _closure_rank(row: dict) -> int:
    if row.get("end_reason") == "compression":
        return 0
    return 1 if row.get("ended_at") is None else 2


def _activity(row: dict):
    value = row.get("last_active")
    return value if value is not None else row.get("started_at")


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0


def resume_target(tree: Tree, session_id: str) -> str:
    """The session whose rows ``session_messages`` returns for ``session_id``.

    Mirrors ``SessionDB.resolve_resume_session_id``: the compression tip first,
    then a walk to the most recently started child that carries neither marker
    (and is not a ``tool`` row), keeping the deepest one that has messages.
    The walk is why a parent forked through the API resolves to its newest
    fork: API forks carry no ``_branched_from`` marker. CLI branches do, and so
    never capture their parent; an API fork is recognised by its source
    (``api_server``) under a parent that ended ``branched``.
    """
    current = compression_tip(tree, session_id)
    start, seen, best = current, {current}, None
    for _ in range(32):  # the provider's own bound
        row = tree.get(current) or {}
        if _number(row.get("message_count")) > 0:
            best = current
        walkable = [
            tree.rows[c] for c in tree.children_of(current) if _unmarked(tree, tree.rows[c])
        ]
        if not walkable:
            break
        newest = sorted(walkable, key=lambda r: r["id"], reverse=True)
        newest.sort(key=lambda r: _number(r.get("started_at")), reverse=True)
        child = newest[0]["id"]
        if child in seen:
            break
        seen.add(child)
        current = child
    return best if best is not None else start


def _unmarked(tree: Tree, row: dict) -> bool:
    """A child without the (API-hidden) branch or delegate marker, as far as we can tell."""
    if row.get("source") in SPAWNED_SOURCES:
        return False  # subagents carry the delegate marker; tool rows are skipped
    parent = tree.get(row.get("parent_session_id")) or {}  # type: ignore[arg-type]
    reason = parent.get("end_reason")
    if reason == "compression":
        return not row.get("visible_in_default_list")  # a listed child has the marker
    if reason == "branched":
        # CLI and gateway /branch write the marker; the API's fork does not.
        return row.get("source") == "api_server"
    # Any other child of an open or otherwise-closed parent: the API fork of an
    # already-closed parent is unmarked too; other children we cannot tell.
    return row.get("source") == "api_server"
