"""DOT source for a lineage picture.

Titles and ids are user text, and DOT has two places where text could turn
into something else: HTML-like labels (markup, entities, and Graphviz's own
``\\N``-style escapes, which it expands even there) and quoted attributes
(``"``, and the same escapes). Every piece of user text goes through
``label_text`` or ``quoted`` below; node names are synthetic (``n0``), so no
user text reaches an SVG ``id``, ``<title>`` or comment.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hermes_ui.hermes.session import is_closed
from hermes_ui.lineage.graph.classify import BRANCH, CONTINUATION, DELEGATE, LABELS, ORPHAN
from hermes_ui.lineage.graph.display import Display, Group, Node

TITLE_CHARS = 40
ID_CHARS = 28

# Edge look by the kind of the child it leads to; the legend uses the same table.
EDGE_STYLES = {
    CONTINUATION: {"color": "#0b5cad", "style": "solid", "penwidth": "2.6", "arrowhead": "normal"},
    BRANCH: {"color": "#c77700", "style": "dashed", "penwidth": "1.8", "arrowhead": "empty"},
    DELEGATE: {"color": "#7a3db8", "style": "dotted", "penwidth": "1.8", "arrowhead": "vee"},
    ORPHAN: {"color": "#a4161a", "style": "dashed", "penwidth": "1.4", "arrowhead": "odot"},
}
EDGE_DASHES = {"solid": "", "dashed": "6,3", "dotted": "1.5,3"}
CURRENT_FILL, CURRENT_LINE, TIP_LINE = "#fff3c4", "#d08c00", "#1d7a3a"


def label_text(value: object, limit: int | None = None) -> str:
    """User text for inside an HTML-like label: markup and escapes neutralised."""
    text = clean(value)
    if limit and len(text) > limit:
        text = text[: limit - 1] + "…"
    return (
        text.replace("&", "&amp;")
        .replace("<", "&lt;")
        .replace(">", "&gt;")
        .replace('"', "&quot;")
        .replace("'", "&#39;")
        # Graphviz expands \N, \G, \L ... after decoding entities; a doubled
        # backslash is its literal backslash.
        .replace("\\", "&#92;&#92;")
    )


def quoted(value: object) -> str:
    """User text as a DOT quoted string for ``tooltip``/``URL`` attributes."""
    # The DOT parser halves backslashes and Graphviz's escString halves them
    # again, so one literal backslash takes four. Graphviz copies anything
    # that looks like an entity into the SVG as is, so "&" is escaped here.
    text = clean(value).replace("&", "&amp;").replace("\\", "\\\\\\\\").replace('"', '\\"')
    return f'"{text}"'


# Unicode category Cc: C0 controls, DEL and the C1 controls.
_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def clean(value: object) -> str:
    """Printable text: control characters and unpaired surrogates replaced."""
    text = str(value if value is not None else "")
    text = text.encode("utf-8", "replace").decode("utf-8")
    return _CONTROL.sub("\N{REPLACEMENT CHARACTER}", text)


def to_dot(
    display: Display,
    *,
    url_for: Callable[[str], str],
    expand_url_for: Callable[[str], str],
    preferred: frozenset[str] = frozenset(),
) -> str:
    """``preferred``: ids a reviewer's verdict preferred; they carry a mark."""
    lines = [
        "digraph lineage {",
        '  graph [rankdir=LR, bgcolor="transparent", nodesep=0.22, ranksep=0.55,'
        ' fontname="DejaVu Sans", tooltip=" "];',
        '  node [shape=box, style="rounded,filled", fontname="DejaVu Sans", fontsize=11,'
        ' color="#6b7785", fillcolor="#ffffff", margin="0.12,0.06"];',
        '  edge [color="#6b7785", arrowsize=0.8];',
    ]
    stack: list[tuple[Node | Group, str | None]] = [(display.root, None)]
    count = 0
    while stack:
        item, parent_name = stack.pop()
        name, count = f"n{count}", count + 1
        if isinstance(item, Group):
            lines.append(f"  {name} {_group_attrs(item, expand_url_for)};")
        else:
            lines.append(f"  {name} {_node_attrs(item, url_for, item.id in preferred)};")
            stack.extend((child, name) for child in reversed(item.children))
        if parent_name is not None:
            lines.append(f"  {parent_name} -> {name} {_edge_attrs(item)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _attrs(pairs: dict[str, str]) -> str:
    return "[" + ", ".join(f"{key}={value}" for key, value in pairs.items()) + "]"


def _node_attrs(node: Node, url_for, preferred: bool = False) -> str:
    if node.ghost:
        label = (
            '<<FONT POINT-SIZE="10"><I>deleted session</I></FONT><BR/>'
            f'<FONT FACE="DejaVu Sans Mono" POINT-SIZE="10">{label_text(node.id, ID_CHARS)}</FONT>>'
        )
        return _attrs(
            {
                "label": label,
                "style": '"rounded,dashed"',
                "color": '"#a4161a"',
                "fontcolor": '"#a4161a"',
                "tooltip": quoted(f"deleted session {node.id} (this lineage's former parent)"),
            }
        )
    row = node.row
    if row.get("hidden"):
        return _hidden_attrs(node)
    title = row.get("title")
    heading = f"<B>{label_text(title, TITLE_CHARS)}</B>" if title else "<I>untitled</I>"
    closed = is_closed(row)
    state = f"closed · {row.get('end_reason') or 'no reason'}" if closed else "open"
    facts = f"{row.get('source') or '?'} · {_count(row.get('message_count'))} msgs · {state}"
    parts = [
        heading,
        f'<FONT FACE="DejaVu Sans Mono" POINT-SIZE="10">{label_text(node.id, ID_CHARS)}</FONT>',
        f'<FONT POINT-SIZE="10">{label_text(facts, 60)}</FONT>',
    ]
    badges = []
    if node.current:
        badges.append("● this session")
    if node.tip:
        badges.append("▶ live tip: resume here")
    if preferred:
        badges.append("★ preferred by review")
    if badges:
        parts.append(f'<FONT POINT-SIZE="10"><B>{label_text(" · ".join(badges))}</B></FONT>')
    if row.get("marks"):  # other features' badges (tags, review labels): user text
        parts.append(f'<FONT POINT-SIZE="10">{label_text(" · ".join(row["marks"]), 80)}</FONT>')
    attrs = {
        "label": "<" + "<BR/>".join(parts) + ">",
        "URL": quoted(url_for(node.id)),
        "target": '"_top"',
        "tooltip": quoted(_tooltip(node, title)),
    }
    if closed:
        attrs.update(fillcolor='"#eef0f3"', fontcolor='"#47515c"')
    if node.current:
        attrs.update(fillcolor=f'"{CURRENT_FILL}"', color=f'"{CURRENT_LINE}"', penwidth="3")
    if node.tip:
        attrs.update(color=f'"{TIP_LINE}"', penwidth="3")
    # SVG classes, so the page can scroll the current session into view.
    marks = [
        name
        for name, on in (("current", node.current), ("tip", node.tip), ("preferred", preferred))
        if on
    ]
    if marks:
        attrs["class"] = f'"{" ".join(marks)}"'
    return _attrs(attrs)


def _hidden_attrs(node: Node) -> str:
    """A session the reader may not open: its place in the tree, nothing that names it.

    No id, title, source or counts, no link and no tooltip (Graphviz would
    otherwise wrap the box in a titled ``<a>``); only the badges of its role in
    the picture (live tip), which are the picture's, not the session's.
    """
    parts = ["<I>a session you can&#39;t open</I>"]
    if node.tip:
        parts.append('<FONT POINT-SIZE="10"><B>▶ live tip</B></FONT>')
    attrs = {
        "label": "<" + "<BR/>".join(parts) + ">",
        "style": '"rounded,filled,dashed"',
        "fillcolor": '"#f3f4f6"',
        "fontcolor": '"#47515c"',
        "class": '"hidden-session"',
    }
    return _attrs(attrs)


def _tooltip(node: Node, title) -> str:
    text = f"{LABELS.get(node.kind, node.kind)}: {title or 'untitled'} ({node.id})"
    usage = node.row.get("usage_text")  # the subtree's tokens and cost (``lineage.totals``)
    return f"{text}. {usage}" if usage else text


def _group_attrs(group: Group, expand_url_for) -> str:
    count = len(group.member_ids)
    label = (
        f"<<B>+ {count} delegates</B><BR/>"
        f'<FONT POINT-SIZE="10">{group.sessions} sessions · click to expand</FONT>>'
    )
    return _attrs(
        {
            "label": label,
            "style": '"rounded,filled,dashed"',
            "fillcolor": '"#f4ecff"',
            "color": '"#7a3db8"',
            "URL": quoted(expand_url_for(group.parent_id)),
            "target": '"_top"',
            "tooltip": quoted(
                f"Show the {count} delegates folded here"
                + (f". {group.usage_text}" if group.usage_text else "")
            ),
        }
    )


def _edge_attrs(item: Node | Group) -> str:
    style = EDGE_STYLES.get(item.kind)
    if style is None:
        return "[]"
    return _attrs({key: f'"{value}"' for key, value in style.items()})


def _count(value) -> str:
    try:
        return f"{int(value):,}"
    except (TypeError, ValueError):
        return "?"
