"""The usage page's figures: day totals in a date range, grouped, as table lines.

One aggregate query over ``DayTotal`` (at most days x sources x models rows
per endpoint), never over the ledger or the sessions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from django.db.models import Q, Sum

from hermes_ui.hermes.contract import USAGE_COSTS as COSTS
from hermes_ui.hermes.contract import USAGE_COUNTERS as AMOUNTS
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import visibility
from hermes_ui.usage.models import DayTotal

DELETED = "deleted sessions"
KINDS = {
    (False, False): "synced",
    (True, False): "history",
    (False, True): DELETED,
    (True, True): f"{DELETED} · history",
}
COLUMNS = (
    ("input_tokens", "Input tokens"),
    ("output_tokens", "Output tokens"),
    ("cache_read_tokens", "Cache read tokens"),
    ("cache_write_tokens", "Cache write tokens"),
    ("reasoning_tokens", "Reasoning tokens"),
    ("estimated_cost_usd", "Estimated cost (USD)"),
    ("actual_cost_usd", "Actual cost (USD)"),
)


@dataclass
class Line:
    day: date
    group: str  # the source, model or endpoint; blank for the deleted bucket unless by endpoint
    history: bool
    deleted: bool
    amounts: dict

    @property
    def kind(self) -> str:
        return KINDS[(self.history, self.deleted)]

    @property
    def series(self) -> str:
        """What the chart stacks: the group, or the deleted bucket."""
        if self.deleted:
            return f"{self.group}: {DELETED}" if self.group else DELETED
        return self.group or "(none)"

    @property
    def tokens(self) -> int:
        return self.amounts["input_tokens"] + self.amounts["output_tokens"]


@dataclass
class Report:
    start: date
    end: date
    by: str
    lines: list[Line] = field(default_factory=list)

    @property
    def days(self) -> int:
        return (self.end - self.start).days + 1

    @property
    def total(self) -> dict:
        return {name: sum(line.amounts[name] for line in self.lines) for name in AMOUNTS}

    @property
    def has_history(self) -> bool:
        return any(line.history for line in self.lines)

    def cells(self, line: Line | None = None) -> list[str]:
        """A table or CSV row: day, group, kind, then the amounts as plain numbers."""
        if line is None:
            head = ["total", "", ""]
            amounts = self.total
        else:
            head = [line.day.isoformat(), line.series, line.kind]
            amounts = line.amounts
        return head + [_plain(name, amounts[name]) for name, _ in COLUMNS]


def build(endpoints: list[Endpoint], start: date, end: date, by: str, user=None) -> Report:
    """The figures of ``endpoints`` over the days, counting only what ``user`` may see
    (``search.visibility``): a person limited to some sources gets those sources'
    figures, and never the "deleted sessions" bucket, which has no source."""
    scope = Q()
    for ep in endpoints:
        scope |= Q(**ep.scope())
    report = Report(start, end, by)
    if not endpoints:
        return report
    rows = (
        visibility.visible(DayTotal.objects.filter(scope, day__gte=start, day__lte=end), user)
        .values("day", by, "history", "deleted")
        .annotate(**{f"sum_{name}": Sum(name) for name in AMOUNTS})
        .order_by()
    )
    for row in rows:
        amounts = {name: row[f"sum_{name}"] or 0 for name in AMOUNTS}
        if not any(amounts.values()):
            continue
        report.lines.append(Line(row["day"], row[by], row["history"], row["deleted"], amounts))
    report.lines.sort(key=lambda ln: (ln.day, ln.deleted, ln.group, ln.history))
    return report


def _plain(name: str, value) -> str:
    return f"{value:.4f}" if name in COSTS else str(int(value))
