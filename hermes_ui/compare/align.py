"""Aligning two transcripts at their fork point, and diffing what follows.

Pure functions over ``session_messages`` rows: no Django, no HTTP. Two
messages are "the same" when their role and a digest of what they say
(content and tool calls) match; ids and timestamps differ between a parent
and its fork's copy, so they are never compared. Templates escape every
piece of text produced here.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import re
from dataclasses import dataclass, field
from itertools import zip_longest

from hermes_ui.hermes import transcript

# Word-level diffs are quadratic in the worst case: longer texts are shown whole.
DIFF_MAX_CHARS = 20_000
# Side-by-side rows drawn after the fork point; the rest are counted, not drawn.
MAX_PAIRS = 200
_TOKENS = re.compile(r"\s+|\w+|[^\w\s]")

SAME, INSERT, REMOVED = "same", "insert", "removed"


def message_key(row: dict) -> tuple[str, str]:
    """Role and content digest: what decides whether two messages are the same."""
    said = {k: row.get(k) for k in ("content", "tool_calls", "tool_call_id", "tool_name")}
    text = json.dumps(said, sort_keys=True, ensure_ascii=False, default=str)
    return str(row.get("role") or ""), hashlib.sha256(text.encode("utf-8", "replace")).hexdigest()


def common_prefix(a_rows: list[dict], b_rows: list[dict]) -> int:
    shared = 0
    for a, b in zip(a_rows, b_rows, strict=False):
        if message_key(a) != message_key(b):
            break
        shared += 1
    return shared


@dataclass
class Side:
    number: int  # 1-based position in its transcript
    row: dict
    role: str
    text: str
    pieces: list[tuple[str, str]] = field(default_factory=list)  # (SAME|INSERT|REMOVED, text)


@dataclass
class Pair:
    a: Side | None
    b: Side | None

    @property
    def same_role(self) -> bool:
        return bool(self.a and self.b and self.a.role == self.b.role)


@dataclass
class Alignment:
    shared: int  # messages in the common prefix
    a_total: int
    b_total: int
    pairs: list[Pair]
    hidden_pairs: int = 0  # divergent rows beyond MAX_PAIRS

    @property
    def a_only(self) -> int:
        return self.a_total - self.shared

    @property
    def b_only(self) -> int:
        return self.b_total - self.shared

    @property
    def identical(self) -> bool:
        return self.a_total == self.b_total == self.shared


def align(a_rows: list[dict], b_rows: list[dict], max_pairs: int = MAX_PAIRS) -> Alignment:
    shared = common_prefix(a_rows, b_rows)
    rest = list(zip_longest(a_rows[shared:], b_rows[shared:]))
    pairs = []
    for index, (a, b) in enumerate(rest[:max_pairs]):
        number = shared + index + 1
        pairs.append(_pair(number, a, b))
    return Alignment(shared, len(a_rows), len(b_rows), pairs, max(0, len(rest) - max_pairs))


def _pair(number: int, a: dict | None, b: dict | None) -> Pair:
    left = _side(number, a) if a is not None else None
    right = _side(number, b) if b is not None else None
    if left and right and left.role == right.role:
        left.pieces, right.pieces = text_diff(left.text, right.text)
    else:
        # Nothing to line up against: each side is shown as it is.
        for side in (left, right):
            if side is not None:
                side.pieces = [(SAME, side.text)]
    return Pair(left, right)


def _side(number: int, row: dict) -> Side:
    return Side(number, row, str(row.get("role") or "?"), transcript.plain_text(row))


def text_diff(old: str, new: str) -> tuple[list[tuple[str, str]], list[tuple[str, str]]]:
    """Word-level diff: the old side marks deletions, the new side insertions."""
    if len(old) + len(new) > DIFF_MAX_CHARS:
        return [(SAME, old)], [(SAME, new)]
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    left: list[tuple[str, str]] = []
    right: list[tuple[str, str]] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            _add(left, SAME, a[i1:i2])
            _add(right, SAME, b[j1:j2])
            continue
        _add(left, REMOVED, a[i1:i2])
        _add(right, INSERT, b[j1:j2])
    return _joined(left), _joined(right)


def _joined(pieces: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """Changed words separated only by spaces read as one change, not a dotted line."""
    out: list[tuple[str, str]] = []
    for index, (kind, text) in enumerate(pieces):
        between = 0 < index < len(pieces) - 1 and kind == SAME and not text.strip()
        if between and out and out[-1][0] != SAME and pieces[index + 1][0] == out[-1][0]:
            out[-1] = (out[-1][0], out[-1][1] + text)
        elif out and out[-1][0] == kind:
            out[-1] = (kind, out[-1][1] + text)
        else:
            out.append((kind, text))
    return out


def _add(pieces: list[tuple[str, str]], kind: str, tokens: list[str]) -> None:
    text = "".join(tokens)
    if not text:
        return
    if pieces and pieces[-1][0] == kind:
        pieces[-1] = (kind, pieces[-1][1] + text)
    else:
        pieces.append((kind, text))
