"""What deleting one session does to its lineage (pure: rows in, consequences out).

The provider deletes the session, then cascades to its delegate descendants
recursively (rows marked ``_delegate_from``, a marker the API hides), and
orphans every other child: branches and compression continuations survive
with ``parent_session_id`` cleared, so each becomes a root. The dashboard
cannot see the marker, so it infers the edge kind with ``classify.edge_kind``
over the administrative list (``include_children=true``, paged to the end).
A child seen in the default list is certainly not a delegate: that list
excludes every row carrying the delegate marker.

Two limits follow from the API and are reported to the reader, not hidden:
archived rows are never listed, so an archived delegate would be deleted
without appearing here; and a delegate marker that points somewhere other
than the row's parent cannot be seen at all.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field

from hermes_ui.lineage.graph.classify import DELEGATE, SPAWNED_SOURCES, edge_kind
from hermes_ui.lineage.graph.tree import Tree


@dataclass(frozen=True)
class Affected:
    id: str
    parent_id: str
    kind: str  # classify kind of the edge from parent_id to id
    depth: int  # 1 = child of the target
    # A delegate only by elimination (not spawned by a tool): the provider
    # decides by its hidden marker, so this one may survive after all.
    inferred: bool = False


@dataclass
class Consequences:
    target_id: str
    cascade: list[Affected] = field(default_factory=list)  # deleted with the target
    survivors: list[Affected] = field(default_factory=list)  # kept, parent cleared
    listed_rows: int = 0

    @property
    def deleted_ids(self) -> list[str]:
        return [self.target_id, *(a.id for a in self.cascade)]

    def as_dict(self) -> dict:
        return {
            "target_id": self.target_id,
            "cascade": [asdict(a) for a in self.cascade],
            "survivors": [asdict(a) for a in self.survivors],
            "listed_rows": self.listed_rows,
        }


def compute(
    rows: list[dict],
    target_id: str,
    *,
    target_row: dict | None = None,
    forked_ids: frozenset[str] | set[str] = frozenset(),
    visible_ids: frozenset[str] | set[str] = frozenset(),
) -> Consequences:
    """The delegates deleted with ``target_id`` and the children that survive it.

    ``rows`` are the administrative list rows; ``target_row`` (the exact row
    from ``session_get``) stands in for the target when it is not listed, for
    example because it is archived. ``forked_ids`` are children this
    dashboard forked and ``visible_ids`` rows seen as themselves in the
    default list: both are branches whatever their parent says.
    """
    tree = Tree(rows)
    result = Consequences(target_id=target_id, listed_rows=len(tree))
    seen = {target_id}
    queue = deque([(target_id, 0)])
    while queue:
        parent_id, depth = queue.popleft()
        parent = target_row if parent_id == target_id and target_row else tree.get(parent_id)
        for child_id in tree.children_of(parent_id):
            if child_id in seen:
                continue  # a parent loop: the provider never deletes a row twice either
            seen.add(child_id)
            child = tree.rows[child_id]  # a child is always one of the tree's rows
            kind = edge_kind(
                child, parent, forked_by_us=child_id in forked_ids, visible=child_id in visible_ids
            )
            if kind == DELEGATE:
                inferred = child.get("source") not in SPAWNED_SOURCES
                result.cascade.append(Affected(child_id, parent_id, kind, depth + 1, inferred))
                queue.append((child_id, depth + 1))
            else:
                result.survivors.append(Affected(child_id, parent_id, kind, depth + 1))
    return result
