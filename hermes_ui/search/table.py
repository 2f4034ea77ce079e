"""The search table's rows and badges, built in Python rather than in a template loop.

Kept because the template loop made the Sessions page a quarter slower (see
docs/development/benchmarks.md, "Django's own mechanisms"); each value is
escaped as ``{{ }}`` would, and the HTML is the same.
"""

from __future__ import annotations

import html

from django.utils.html import format_html
from django.utils.safestring import SafeString, mark_safe
from django.utils.text import slugify

from hermes_ui.hermes.session import is_closed
from hermes_ui.index import archived
from hermes_ui.web import formatting, links

# Exactly what the template loop gave: each row starts on its own line.
_ROW = (
    "\n        <tr>\n"
    '          <td><input type="checkbox" name="ids" value="{id}" aria-label="Select {id}"'
    " data-select-row></td>\n"
    '          <td class="title"><a href="{url}">{title}</a>{badges}\n'
    "            {tipnote}</td>\n"
    '          <td><code title="{id}">{short}</code></td>\n'
    '          <td><span class="kind kind-{kind}">{kind_text}</span></td>\n'
    "          <td>{source}</td>\n"
    '          <td class="num">{messages}</td>\n'
    "          <td>{when}</td>\n"
    '          <td class="preview">{preview}</td>\n'
    "          <td>{state}</td>\n"
    "          <td>{lineage}</td>\n"
    "        </tr>\n      "
)
_UNTITLED = mark_safe('<em class="muted">untitled</em>')
_TIPNOTE = mark_safe('<div class="tipnote">not in the default list</div>')
_ARCHIVED_NOTE = format_html('<div class="tipnote archived-note">{}</div>', archived.LABEL)
_OPEN = mark_safe('<span class="state open">open</span>')
_NO_LINEAGE = mark_safe('<span class="muted">—</span>')
_BADGE = '<span class="badge badge-{}{}"{}>{}</span>'


def badges_html(badges) -> SafeString:
    """Other features' marks on a session (``index.badges``); their text is escaped."""
    return mark_safe(  # noqa: S308 - every value escaped
        "".join(
            _BADGE.format(
                _e(b.colour or "grey"),
                f" badge-kind-{slugify(b.kind)}" if b.kind else "",
                f' title="{_e(b.title)}"' if b.title else "",
                _e(b.text),
            )
            for b in badges
        )
    )


def _state(row: dict) -> SafeString:
    if not is_closed(row):
        return _OPEN
    return format_html(
        '<span class="state closed">closed</span> <span class="reason">{}</span>',
        row.get("end_reason") or "",
    )


def _lineage(endpoint_id: str, row: dict) -> SafeString:
    children = row.get("child_count")
    if not (row.get("parent_session_id") or children or row.get("former_parent_id")):
        return _NO_LINEAGE
    count = ""
    if children:
        count = f" ({children} child{'' if children == 1 else 'ren'})"
    url = links.session_url(endpoint_id, row["id"], "lineage_page")
    return format_html('<a href="{}">graph{}</a>', url, count)


def _e(value) -> str:
    """``conditional_escape`` of one value, minus its per-call cost (14 values x 50 rows)."""
    return value if isinstance(value, SafeString) else html.escape(str(value))


def row_html(endpoint_id: str, row: dict) -> str:
    """One row of the table, every value escaped (as ``{{ }}`` in a template would)."""
    marks = row.get("badges")
    hidden = not row.get("visible_in_default_list") and row.get("kind") not in (
        "continuation",
        "delegate",
    )
    return _ROW.format(
        id=_e(row["id"]),
        url=_e(links.session_url(endpoint_id, row["id"])),
        title=_e(row.get("title") or _UNTITLED),
        # The include of partials/badges.html ended with its file's newline.
        badges=" " + badges_html(marks) + "\n" if marks else "",
        tipnote=(_ARCHIVED_NOTE if archived.is_archived(row) else _TIPNOTE) if hidden else "",
        short=_e(formatting.short_id(row["id"], 22)),
        kind=_e(row.get("kind")),
        kind_text=_e(row.get("kind") or "?"),
        source=_e(row.get("source") or "—"),
        messages=_e(formatting.number(row.get("message_count"))),
        when=_e(formatting.when(row.get("last_active"))),
        preview=_e(row.get("preview") or ""),
        state=_state(row),
        lineage=_lineage(endpoint_id, row),
    )


def rows_html(endpoint_id: str, rows: list[dict]) -> SafeString:
    return mark_safe("".join(row_html(endpoint_id, row) for row in rows))  # noqa: S308 - escaped
