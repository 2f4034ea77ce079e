"""How numbers, times and ids look on a page: once for templates and for Python-built HTML.

The ``hermes`` template library registers these as ``number``, ``short_id``
and ``{% when %}``; ``index/table.py`` calls them directly.
"""

from __future__ import annotations

from django.utils.html import format_html
from django.utils.safestring import SafeString

from hermes_ui.web import timefmt


def number(value) -> str:
    if value is None or value == "":
        return "—"
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return str(value)


def short_id(session_id, length: int = 14) -> str:
    value = str(session_id or "")
    return value if len(value) <= length else value[: length - 1] + "…"


def when(ts) -> SafeString | str:
    """A relative time with the exact time on hover, keyboard focusable."""
    if ts is None:
        return "—"
    return format_html(
        '<time datetime="{}" title="{}" tabindex="0">{}</time>',
        timefmt.iso(ts),
        timefmt.exact(ts),
        timefmt.relative(ts),
    )
