"""What a lineage picture shows: the tree, with big delegate fan-outs folded.

Shared by the graph (DOT) and the indented list, so both show the same
thing. Delegates are folded, never branches or continuations: a resume
lands on those, so they always stay visible. A parent's delegate children
are folded into one counted group when there are more than ``threshold``
of them, and, while the picture is still larger than ``budget`` nodes, the
largest remaining delegate fan-outs are folded too. A group the reader
expanded stays open, and so does any group holding the current session or
the live tip.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hermes_ui.lineage.graph.classify import DELEGATE, ORPHAN
from hermes_ui.lineage.graph.tree import Tree

GHOST = "ghost"


@dataclass
class Node:
    id: str
    row: dict
    kind: str
    depth: int
    current: bool = False
    tip: bool = False
    ghost: bool = False  # a deleted parent, remembered by the index only
    children: list = field(default_factory=list)  # Node | Group
    url: str = ""  # filled in by whoever links it


@dataclass
class Group:
    parent_id: str
    member_ids: tuple[str, ...]
    sessions: int  # members and everything below them
    depth: int
    kind: str = DELEGATE
    url: str = ""  # where "expand" leads; filled in by the caller
    usage_text: str = ""  # the folded subtrees' tokens and cost, filled in by the caller


@dataclass
class Entry:
    """One line of the indented list; ``closes`` levels end after it."""

    item: Node | Group
    depth: int
    opens: bool
    closes: int

    @property
    def closing(self) -> range:
        return range(self.closes)


@dataclass
class Display:
    root: Node
    total: int  # sessions in the lineage
    drawn: int  # session nodes drawn (ghost excluded)
    groups: list[Group]
    current_id: str
    tip_id: str

    @property
    def size(self) -> int:
        return self.drawn + len(self.groups)

    def nodes(self) -> list[Node]:
        found, stack = [], [self.root]
        while stack:
            item = stack.pop()
            if isinstance(item, Node):
                found.append(item)
                stack.extend(reversed(item.children))
        return found

    def entries(self) -> list[Entry]:
        flat: list[tuple[Node | Group, int]] = []
        stack: list[Node | Group] = [self.root]
        while stack:
            item = stack.pop()
            flat.append((item, item.depth))
            if isinstance(item, Node):
                stack.extend(reversed(item.children))
        result = []
        for index, (item, depth) in enumerate(flat):
            following = flat[index + 1][1] if index + 1 < len(flat) else self.root.depth
            opens = following > depth
            result.append(Entry(item, depth, opens, 0 if opens else depth - following))
        return result


def build(
    tree: Tree,
    kinds: dict[str, str],
    *,
    root_id: str,
    current_id: str,
    tip_id: str,
    expanded: frozenset[str] | set[str] = frozenset(),
    threshold: int = 5,
    budget: int = 120,
    former_parent_id: str | None = None,
) -> Display:
    sizes = tree.subtree_sizes(root_id)
    pinned = _parents_of_paths(tree, root_id, [current_id, tip_id])
    keep_open = set(expanded) | pinned
    folded = {
        parent
        for parent in sizes
        if parent not in keep_open and len(_delegates(tree, kinds, parent)) > threshold
    }
    _fold_to_budget(tree, kinds, root_id, sizes, folded, keep_open, budget)
    groups: list[Group] = []
    ghost_depth = 1 if former_parent_id and kinds.get(root_id) == ORPHAN else 0
    root = _nodes(tree, kinds, root_id, ghost_depth, current_id, tip_id, folded, sizes, groups)
    drawn = sum(1 for _ in _session_nodes(root))
    if ghost_depth:
        ghost = Node(former_parent_id, {"id": former_parent_id}, GHOST, 0, ghost=True)  # type: ignore[arg-type]
        ghost.children.append(root)
        root = ghost
    return Display(root, len(sizes), drawn, groups, current_id, tip_id)


def _delegates(tree: Tree, kinds: dict[str, str], parent: str) -> list[str]:
    return [c for c in tree.children_of(parent) if kinds.get(c) == DELEGATE]


def _parents_of_paths(tree: Tree, root_id: str, targets: list[str]) -> set[str]:
    """Every parent on the way from the root to each target (so its group opens)."""
    pinned: set[str] = set()
    for target in targets:
        if target in tree:
            chain = [target, *tree.ancestors(target)]
            pinned.update(tree.parent_of(node) or "" for node in chain if node != root_id)
    pinned.discard("")
    return pinned


def _visible_count(tree, kinds, start, folded) -> int:
    count, stack, seen = 0, [start], {start}
    while stack:
        node = stack.pop()
        count += 1
        children = tree.children_of(node)
        if node in folded:
            delegates = set(_delegates(tree, kinds, node))
            children = [c for c in children if c not in delegates]
            count += 1  # the group node
        fresh = [c for c in children if c not in seen]
        seen.update(fresh)
        stack.extend(fresh)
    return count


def _fold_to_budget(tree, kinds, root_id, sizes, folded, keep_open, budget) -> None:
    count = _visible_count(tree, kinds, root_id, folded)
    if count <= budget:
        return
    candidates = sorted(
        (p for p in sizes if p not in folded and p not in keep_open),
        key=lambda p: (-sum(sizes[d] for d in _delegates(tree, kinds, p)), p),
    )
    for parent in candidates:
        delegates = _delegates(tree, kinds, parent)
        if not delegates or _hidden(tree, parent, folded, kinds, root_id):
            continue
        saved = sum(_visible_count(tree, kinds, d, folded) for d in delegates) - 1
        if saved <= 0:
            continue
        folded.add(parent)
        count -= saved
        if count <= budget:
            return


def _hidden(tree, node, folded, kinds, root_id) -> bool:
    """Is ``node`` inside a folded group?"""
    current, seen = node, {node}
    while current != root_id:
        parent = tree.parent_of(current)
        if parent is None or parent in seen:
            return False
        if parent in folded and kinds.get(current) == DELEGATE:
            return True
        seen.add(parent)
        current = parent
    return False


def _nodes(tree, kinds, root_id, depth, current_id, tip_id, folded, sizes, groups) -> Node:
    def make(node_id: str, at: int) -> Node:
        return Node(
            node_id,
            tree.rows[node_id],
            kinds.get(node_id, ""),
            at,
            current=node_id == current_id,
            tip=node_id == tip_id,
        )

    root = make(root_id, depth)
    seen, stack = {root_id}, [root]
    while stack:
        node = stack.pop()
        hidden = set(_delegates(tree, kinds, node.id)) if node.id in folded else set()
        for child in tree.children_of(node.id):
            if child in hidden or child not in sizes or child in seen:
                continue
            seen.add(child)
            node.children.append(make(child, node.depth + 1))
        stack.extend(node.children)
        if hidden:
            members = tuple(c for c in tree.children_of(node.id) if c in hidden)
            group = Group(node.id, members, sum(sizes[m] for m in members), node.depth + 1)
            groups.append(group)
            node.children.append(group)
    return root


def _session_nodes(root: Node):
    stack = [root]
    while stack:
        item = stack.pop()
        if isinstance(item, Node):
            yield item
            stack.extend(item.children)
