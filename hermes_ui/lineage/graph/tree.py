"""A lineage as a tree of session rows (pure: dicts in, ids out).

Rows are dicts with at least ``id`` and ``parent_session_id`` (the shape of a
list row). Every walk is cycle-safe: Hermes does not forbid a parent loop,
and a page must never hang on one. Children are ordered by start time, then
id, so anything drawn from a tree is deterministic.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator


class Tree:
    def __init__(self, rows: Iterable[dict]):
        self.rows: dict[str, dict] = {}
        for row in rows:
            row_id = row.get("id") if isinstance(row, dict) else None
            if isinstance(row_id, str) and row_id not in self.rows:
                self.rows[row_id] = row
        self._children: dict[str, list[str]] = {}
        for row_id, row in self.rows.items():
            parent = row.get("parent_session_id")
            if isinstance(parent, str) and parent and parent != row_id:
                self._children.setdefault(parent, []).append(row_id)
        for ids in self._children.values():
            ids.sort(key=lambda i: (_number(self.rows[i].get("started_at")), i))

    def __contains__(self, session_id: object) -> bool:
        return session_id in self.rows

    def __len__(self) -> int:
        return len(self.rows)

    def get(self, session_id: str) -> dict | None:
        return self.rows.get(session_id)

    def parent_of(self, session_id: str) -> str | None:
        """The parent's id when the parent is in the tree."""
        row = self.rows.get(session_id)
        parent = row.get("parent_session_id") if row else None
        return parent if parent in self.rows and parent != session_id else None

    def children_of(self, session_id: str) -> list[str]:
        return list(self._children.get(session_id, ()))

    def descendants(self, session_id: str) -> list[str]:
        """Every descendant, breadth first, without ``session_id`` itself."""
        seen, order = {session_id}, []
        queue = deque([session_id])
        while queue:
            for child in self._children.get(queue.popleft(), ()):
                if child not in seen:
                    seen.add(child)
                    order.append(child)
                    queue.append(child)
        return order

    def ancestors(self, session_id: str) -> list[str]:
        """Parents up to the root, nearest first, within the tree."""
        seen, chain = {session_id}, []
        current = self.parent_of(session_id)
        while current is not None and current not in seen:
            seen.add(current)
            chain.append(current)
            current = self.parent_of(current)
        return chain

    def root_of(self, session_id: str) -> str:
        chain = self.ancestors(session_id)
        return chain[-1] if chain else session_id

    def roots(self) -> list[str]:
        found = [i for i in self.rows if self.parent_of(i) is None]
        # A loop has no root; its lowest id stands in so it is still drawn.
        covered = {d for r in found for d in [r, *self.descendants(r)]}
        for row_id in sorted(self.rows):
            if row_id not in covered:
                found.append(row_id)
                covered.update([row_id, *self.descendants(row_id)])
        return found

    def walk(self, start: str) -> Iterator[tuple[str, int]]:
        """``(id, depth)`` in depth-first pre-order from ``start``."""
        seen = {start}
        stack = [(start, 0)]
        while stack:
            row_id, depth = stack.pop()
            yield row_id, depth
            for child in reversed(self._children.get(row_id, ())):
                if child not in seen:
                    seen.add(child)
                    stack.append((child, depth + 1))

    def subtree_sizes(self, start: str) -> dict[str, int]:
        """Sessions in each subtree below ``start`` (itself included), in one pass."""
        order = list(self.walk(start))
        sizes = dict.fromkeys((row_id for row_id, _ in order), 1)
        for row_id, _ in reversed(order):
            parent = self.parent_of(row_id)
            if parent in sizes and row_id != start:
                sizes[parent] += sizes[row_id]
        return sizes


def _number(value) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return 0.0
