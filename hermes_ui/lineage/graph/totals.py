"""Tokens and cost summed over a lineage: the whole tree, each subtree, a compression chain.

Pure: rows in (the index's copies of the sessions' own counters), sums out.
A counter a session does not report counts as 0, and ``unknown`` says how
many sessions reported no counter at all, so a sum is never silently
presented as complete. Each session's counters are summed as Hermes reports
them for that session.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from hermes_ui.hermes.contract import USAGE_COSTS as COSTS
from hermes_ui.hermes.contract import USAGE_TOKENS as TOKENS
from hermes_ui.lineage.graph.classify import CONTINUATION
from hermes_ui.lineage.graph.tree import Tree


@dataclass(frozen=True)
class Total:
    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    reasoning_tokens: int = 0
    estimated_cost_usd: float = 0.0
    actual_cost_usd: float = 0.0
    sessions: int = 0
    unknown: int = 0  # sessions that report no counter at all

    def __add__(self, other: Total) -> Total:
        return Total(*(getattr(self, f.name) + getattr(other, f.name) for f in fields(Total)))

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    def describe(self) -> str:
        """One line for a tooltip or a list entry."""
        text = (
            f"{self.sessions} session{'s' if self.sessions != 1 else ''}: "
            f"{self.input_tokens:,} in · {self.output_tokens:,} out · "
            f"{self.cache_read_tokens + self.cache_write_tokens:,} cache · "
            f"{self.reasoning_tokens:,} reasoning tokens · est. ${self.estimated_cost_usd:,.4f}"
        )
        if self.actual_cost_usd:
            text += f" · actual ${self.actual_cost_usd:,.4f}"
        if self.unknown:
            text += f" ({self.unknown} without figures)"
        return text


def of_row(row: dict) -> Total:
    values = {name: _number(row.get(name), int if name in TOKENS else float) for name in TOKENS}
    values.update({name: _number(row.get(name), float) for name in COSTS})
    reported = any(row.get(name) is not None for name in (*TOKENS, *COSTS))
    return Total(**values, sessions=1, unknown=0 if reported else 1)


def of_rows(rows) -> Total:
    total = Total()
    for row in rows:
        total += of_row(row)
    return total


def subtrees(tree: Tree, start: str) -> dict[str, Total]:
    """Each subtree's total below ``start`` (itself included), in one pass; cycle-safe."""
    order = [row_id for row_id, _ in tree.walk(start)]
    sums = {row_id: of_row(tree.rows[row_id]) for row_id in order}
    for row_id in reversed(order):
        parent = tree.parent_of(row_id)
        if parent in sums and row_id != start:
            sums[parent] += sums[row_id]
    return sums


def chain_root(tree: Tree, kinds: dict[str, str], session_id: str) -> str:
    """Where the compression chain holding ``session_id`` starts."""
    current, seen = session_id, {session_id}
    while kinds.get(current) == CONTINUATION:
        parent = tree.parent_of(current)
        if parent is None or parent in seen:
            break
        seen.add(parent)
        current = parent
    return current


def _number(value, kind):
    if isinstance(value, bool):
        return kind(0)
    try:
        return kind(value) if value is not None else kind(0)
    except (TypeError, ValueError, OverflowError):
        return kind(0)
