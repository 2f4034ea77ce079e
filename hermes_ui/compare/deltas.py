"""The figures two sessions are compared on: counts, tokens, cost, reasons.

Pure: takes the two session rows (``Session`` values) and the transcripts
the comparison could read (``None`` when a side's own transcript is not
readable), and returns rows for a table.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from hermes_ui.hermes.session import Session


@dataclass
class Delta:
    label: str
    a: object
    b: object
    kind: str = "number"  # "number", "usd" or "text"

    @property
    def change(self):
        """``b - a`` for numbers both sides know; ``None`` otherwise."""
        if self.kind == "text" or not _known(self.a) or not _known(self.b):
            return None
        return self.b - self.a

    @property
    def differs(self) -> bool:
        return self.a != self.b


def deltas(a: Session, b: Session, a_rows: list | None, b_rows: list | None) -> list[Delta]:
    return [
        Delta("Active messages", _len(a_rows), _len(b_rows)),
        Delta("Messages in the row", a.message_count, b.message_count),
        Delta("Tool calls (row)", a.tool_call_count, b.tool_call_count),
        Delta("Tool calls in the transcript", tool_calls(a_rows), tool_calls(b_rows)),
        Delta("Input tokens", a.input_tokens, b.input_tokens),
        Delta("Output tokens", a.output_tokens, b.output_tokens),
        Delta("Estimated cost", a.estimated_cost_usd, b.estimated_cost_usd, "usd"),
        Delta("Actual cost", a.actual_cost_usd, b.actual_cost_usd, "usd"),
        Delta("Finish reasons", finish_reasons(a_rows), finish_reasons(b_rows), "text"),
        Delta("End reason", _end(a), _end(b), "text"),
    ]


def tool_calls(rows: list | None) -> int | None:
    if rows is None:
        return None
    return sum(len(r["tool_calls"]) for r in rows if isinstance(r.get("tool_calls"), list))


def finish_reasons(rows: list | None) -> str | None:
    """``stop (3), tool_calls (1)``: how the model's turns ended, most common first."""
    if rows is None:
        return None
    counts = Counter(str(r["finish_reason"]) for r in rows if r.get("finish_reason"))
    return ", ".join(f"{reason} ({n})" for reason, n in counts.most_common()) or "none"


def _end(session: Session) -> str:
    if not session.closed:
        return "open"
    return session.end_reason or "closed, no reason"


def _len(rows: list | None) -> int | None:
    return None if rows is None else len(rows)


def _known(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
