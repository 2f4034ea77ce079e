"""DOT generation: escaping of user text, edge styles, highlights, folding (pure + dot)."""

import shutil
import xml.etree.ElementTree as ET

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.lineage import render
from hermes_ui.lineage.graph import display, graph
from hermes_ui.lineage.graph.classify import kinds_of
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.web.links import session_url

SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
needs_dot = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz dot not installed")
NASTY = [
    ids.XSS_TITLE,
    ids.ODD_ID,
    ids.UNICODE_TITLE,
    'back\\slash \\N \\G \\L \\" end',
    'quote " and ]] and }; digraph x { and <BR/>',
    "ctrl \x07 bell \x1b[31m red \ud800 lone",
]


def row(session_id, parent=None, **fields):
    return {
        "id": session_id,
        "parent_session_id": parent,
        "source": "cli",
        "title": None,
        "started_at": 100.0,
        "ended_at": None,
        "end_reason": None,
        "message_count": 3,
        **fields,
    }


def draw(rows, current, tip=None, **options):
    tree = Tree(rows)
    kinds = kinds_of(rows, known_gone=options.pop("gone", ()))
    root = tree.root_of(current)
    if kinds[root] == "orphan":
        options["former_parent_id"] = tree.get(root)["former_parent_id"]
    shown = display.build(
        tree, kinds, root_id=root, current_id=current, tip_id=tip or current, **options
    )
    return shown, graph.to_dot(
        shown,
        url_for=lambda i: session_url("local", i),
        expand_url_for=lambda p: session_url("local", current, "lineage_page", expand=p),
    )


def svg_of(dot_source):
    rendered = render.render(dot_source)
    assert rendered.error is None, rendered.error
    return rendered.svg, ET.fromstring(rendered.svg)  # noqa: S314 - our own dot output


def texts(tree):
    return ["".join(t.itertext()) for t in tree.iter(f"{SVG}text")]


@needs_dot
def test_titles_and_ids_reach_the_svg_as_plain_text():
    rows = [row("root", title="Plain root")]
    rows += [row(f"n{i}", "root", title=text) for i, text in enumerate(NASTY)]
    rows += [row(ids.ODD_ID, "root", title=None), row(ids.UNICODE_ID, "root", title="ok")]
    _, source = draw(rows, "root", threshold=100)
    svg, tree = svg_of(source)
    shown = texts(tree)
    # The XSS title is text, never markup, in both the label and the tooltip.
    assert graph.clean(ids.XSS_TITLE)[: graph.TITLE_CHARS - 1] in "".join(shown)
    assert not list(tree.iter(f"{SVG}script")) and "<script" not in svg
    assert "&lt;script&gt;" in svg
    # Graphviz's own escapes (\N = node name) are not expanded from user text.
    assert any(t.startswith("back\\slash \\N \\G") for t in shown)
    assert not any("n3" in t and "back" in t for t in shown)
    # Control characters and lone surrogates are replaced, the rest kept.
    assert any("ctrl \N{REPLACEMENT CHARACTER} bell" in t for t in shown)
    assert ids.ODD_ID[: graph.ID_CHARS - 1] in "".join(shown)
    assert ids.UNICODE_ID in "".join(shown)
    # Tooltips carry the full text, exactly.
    titles = [a.get(f"{XLINK}title") for a in tree.iter(f"{SVG}a")]
    assert f"delegate: {ids.XSS_TITLE} (n0)" in titles
    assert any(t and 'back\\slash \\N \\G \\L \\" end' in t for t in titles)


@needs_dot
def test_every_node_links_to_its_session_page_with_the_id_encoded():
    rows = [row("root"), row(ids.ODD_ID, "root"), row("a/b?c#d", "root")]
    _, source = draw(rows, "root")
    _, tree = svg_of(source)
    links = {a.get(f"{XLINK}href") for a in tree.iter(f"{SVG}a")} - {None}
    assert session_url("local", ids.ODD_ID) in links
    assert session_url("local", "a/b?c#d") in links
    assert all(link.startswith("/e/local/sessions/") for link in links)
    # Node names are synthetic: no user text in ids or comments.
    assert {g.get("id")[:4] for g in tree.iter() if g.get("id")} <= {
        "node",
        "edge",
        "grap",
        "a_no",
        "a_gr",
    }


def test_edges_are_styled_by_kind():
    rows = [
        row("r", end_reason="compression", ended_at=150.0),
        row("c", "r"),
        row("s", "c", source="subagent"),
        row("p", "c", end_reason="branched", ended_at=1.0),
    ]
    rows.append(row("b", "p", started_at=200.0))
    _, source = draw(rows, "c")
    assert 'color="#0b5cad", style="solid"' in source  # continuation
    assert 'color="#7a3db8", style="dotted"' in source  # delegate
    assert 'color="#c77700", style="dashed"' in source  # branch


def test_current_session_and_live_tip_are_highlighted():
    rows = [row("r", end_reason="compression", ended_at=150.0), row("t", "r")]
    _, source = draw(rows, "r", tip="t")
    current_line = next(line for line in source.splitlines() if "this session" in line)
    tip_line = next(line for line in source.splitlines() if "live tip" in line)
    assert graph.CURRENT_FILL in current_line and "penwidth=3" in current_line
    assert graph.TIP_LINE in tip_line and current_line != tip_line


def test_a_big_delegate_fan_out_folds_into_a_counted_node_that_expands():
    rows = [
        row("p", title="Parent", end_reason="branched", ended_at=150.0),
        row("b", "p", started_at=200.0),
    ]
    rows += [row(f"d{i}", "p", source="subagent") for i in range(8)]
    rows += [row("dd", "d3", source="subagent")]
    shown, source = draw(rows, "p", threshold=5)
    assert len(shown.groups) == 1 and shown.groups[0].sessions == 9
    assert "+ 8 delegates" in source and "9 sessions" in source
    expand = session_url("local", "p", "lineage_page", expand="p")
    assert f'URL="{expand}"' in source
    assert "d3" not in source  # folded away
    # Expanded by the reader: every delegate is drawn again.
    shown, source = draw(rows, "p", threshold=5, expanded={"p"})
    assert not shown.groups and shown.drawn == 11


def test_the_group_holding_the_current_session_stays_open():
    rows = [row("p")] + [row(f"d{i}", "p", source="subagent") for i in range(8)]
    shown, _ = draw(rows, "d5", threshold=5)
    assert not shown.groups and shown.drawn == 9


def test_a_lineage_over_budget_folds_its_largest_delegate_fan_outs():
    rows = [row("r")]
    for b in range(4):
        rows.append(row(f"b{b}", "r", visible_in_default_list=True))
        rows += [row(f"b{b}d{i}", f"b{b}", source="subagent") for i in range(3 + b)]
    shown, _ = draw(rows, "r", threshold=10, budget=12)
    assert shown.size <= 12
    assert all(n.kind != "delegate" for n in shown.nodes()) or shown.groups
    assert {n.id for n in shown.nodes()} >= {"r", "b0", "b1", "b2", "b3"}  # branches stay


def test_an_orphan_is_drawn_under_its_deleted_parent():
    rows = [row("orphan", former_parent_id="gone-parent"), row("kid", "orphan")]
    shown, source = draw(rows, "orphan", gone={"gone-parent"})
    assert shown.root.ghost and shown.root.id == "gone-parent"
    assert "deleted session" in source and 'color="#a4161a", style="dashed"' in source
    assert shown.total == 2


def test_the_indented_list_nests_like_the_tree():
    rows = [row("r"), row("a", "r"), row("a1", "a"), row("b", "r")]
    shown, _ = draw(rows, "r")
    entries = shown.entries()
    assert [(e.item.id, e.depth, e.opens, e.closes) for e in entries] == [
        ("r", 0, True, 0),
        ("a", 1, True, 0),
        ("a1", 2, False, 1),
        ("b", 1, False, 1),
    ]
