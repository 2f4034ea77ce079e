"""The usage chart as positioned shapes: stacked bars per day, drawn by a template as SVG.

Pure arithmetic; the template (``usage/_chart.html``) writes the SVG, so
every label (a source or model name from Hermes) is escaped by Django like
any other text. History amounts are drawn hatched over their series colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import timedelta

from hermes_ui.usage.report import DELETED, Report

WIDTH, HEIGHT = 900, 260
LEFT, RIGHT, TOP, BOTTOM = 64, 8, 10, 34
MAX_SERIES = 8  # the rest are stacked as one "other" series
PALETTE = ("#0b5cad", "#c77700", "#1d7a3a", "#7a3db8", "#a4161a", "#00838f", "#b0478f", "#5d6b00")
OTHER_COLOUR, DELETED_COLOUR = "#8893a0", "#47515c"


@dataclass
class Rect:
    x: float
    y: float
    width: float
    height: float
    colour: str
    hatched: bool
    title: str  # the tooltip: day, series, value


@dataclass
class Chart:
    title: str
    description: str
    rects: list[Rect] = field(default_factory=list)
    legend: list[tuple[str, str]] = field(default_factory=list)  # (series, colour)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)  # (y, label)
    x_ticks: list[tuple[float, str]] = field(default_factory=list)  # (x, label)
    width: int = WIDTH
    height: int = HEIGHT
    baseline: float = HEIGHT - BOTTOM
    left: int = LEFT


def build(report: Report, metric: str) -> Chart:
    value = (
        (lambda ln: ln.tokens)
        if metric == "tokens"
        else (lambda ln: ln.amounts["estimated_cost_usd"])
    )
    unit = "input + output tokens" if metric == "tokens" else "estimated cost (USD)"
    totals: dict[str, float] = {}
    for line in report.lines:
        totals[line.series] = totals.get(line.series, 0) + max(0, value(line))
    ranked = sorted((s for s in totals if DELETED not in s), key=lambda s: (-totals[s], s))
    named = ranked[:MAX_SERIES]
    colours = {s: PALETTE[i % len(PALETTE)] for i, s in enumerate(named)}
    for series in totals:
        colours.setdefault(series, DELETED_COLOUR if DELETED in series else OTHER_COLOUR)

    def series_of(line) -> str:
        return line.series if line.series in named or line.deleted else "other"

    stacks: dict = {}
    for line in report.lines:
        key = (line.day, series_of(line), line.history)
        stacks[key] = stacks.get(key, 0) + max(0, value(line))
    per_day: dict = {}
    for (day, _, _), amount in stacks.items():
        per_day[day] = per_day.get(day, 0) + amount
    top = _nice(max(per_day.values(), default=0))
    chart = Chart(
        title=f"Usage per day, {unit}, by {report.by}",
        description=(
            f"Stacked bars, one per day from {report.start} to {report.end}; each colour is a "
            f"{report.by}, hatched parts are history booked on a session's start day. "
            "The table below holds the same figures."
        ),
    )
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    slot = plot_w / report.days
    order = [*named, "other", *sorted(s for s in totals if DELETED in s)]
    for index in range(report.days):
        day = report.start + timedelta(days=index)
        y = chart.baseline
        for series in order:
            for history in (False, True):
                amount = stacks.get((day, series, history), 0)
                if not amount or not top:
                    continue
                height = amount / top * plot_h
                y -= height
                shown = f"{amount:,.0f}" if metric == "tokens" else f"${amount:,.4f}"
                kind = " (history)" if history else ""
                chart.rects.append(
                    Rect(
                        round(LEFT + index * slot + slot * 0.1, 2),
                        round(y, 2),
                        round(max(slot * 0.8, 0.5), 2),
                        round(height, 2),
                        colours.get(series, OTHER_COLOUR),
                        history,
                        f"{day}: {series}{kind}, {shown}",
                    )
                )
    chart.legend = [(s, colours[s]) for s in named]
    if any(series_of(ln) == "other" for ln in report.lines):
        chart.legend.append(("other", OTHER_COLOUR))
    chart.legend += [(s, colours[s]) for s in order if DELETED in s]
    for step in range(5):
        amount = top * step / 4
        label = f"{amount:,.0f}" if metric == "tokens" else f"${amount:,.2f}"
        chart.y_ticks.append((round(chart.baseline - plot_h * step / 4, 2), label))
    every = max(1, round(report.days / 10))
    for index in range(0, report.days, every):
        day = report.start + timedelta(days=index)
        chart.x_ticks.append((round(LEFT + index * slot + slot / 2, 2), day.strftime("%b %d")))
    return chart


def _nice(value: float) -> float:
    """A round axis maximum at or above ``value``."""
    if value <= 0:
        return 0
    magnitude = 10 ** math.floor(math.log10(value))
    for step in (1, 2, 2.5, 5, 10):
        if step * magnitude >= value:
            return step * magnitude
    return value
