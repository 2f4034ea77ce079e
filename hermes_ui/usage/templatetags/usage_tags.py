"""The usage page's long repeated markup (table lines, chart bars), built with ``format_html``.

A 90-day page has about a thousand table lines and as many bars; rendered by
template loops that is most of the page's time. ``format_html`` escapes
every value it is given (source and model names come from Hermes), exactly
as the template would.
"""

from django import template
from django.utils.html import format_html, format_html_join

from hermes_ui.usage.report import COLUMNS

register = template.Library()


_AMOUNT_CELLS = '<td class="num">{}</td>' * len(COLUMNS)
_LINE = '<tr class="{}"><th scope="row">{}</th><td>{}</td><td>{}</td>' + _AMOUNT_CELLS + "</tr>"


@register.simple_tag
def usage_lines(rows) -> str:
    """``<tr>`` per (line, cells): day, group and kind, then the amounts."""
    return format_html_join("\n", _LINE, ((_classes(line), *cells) for line, cells in rows))


def _classes(line) -> str:
    return " ".join(
        c for c, on in (("is-history", line.history), ("is-deleted", line.deleted)) if on
    )


@register.simple_tag
def chart_bars(chart) -> str:
    """One ``<g>`` per bar segment: its tooltip, its colour, and the hatch over history."""
    return format_html_join(
        "",
        '<g><title>{}</title><rect x="{}" y="{}" width="{}" height="{}" fill="{}"/>{}</g>',
        (
            (
                r.title,
                r.x,
                r.y,
                r.width,
                r.height,
                r.colour,
                format_html(
                    '<rect x="{}" y="{}" width="{}" height="{}" fill="url(#hatch)" '
                    'fill-opacity="0.55"/>',
                    r.x,
                    r.y,
                    r.width,
                    r.height,
                )
                if r.hatched
                else "",
            )
            for r in chart.rects
        ),
    )
