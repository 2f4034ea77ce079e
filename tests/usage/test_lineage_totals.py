"""Lineage totals, pure: subtrees, chains, loops and sessions without figures."""

from hermes_ui.lineage.graph import graph
from hermes_ui.lineage.graph.classify import CONTINUATION, DELEGATE, ROOT
from hermes_ui.lineage.graph.display import Node
from hermes_ui.lineage.graph.totals import Total, chain_root, of_rows, subtrees
from hermes_ui.lineage.graph.tree import Tree


def r(session_id, parent=None, **counters):
    return {"id": session_id, "parent_session_id": parent, **counters}


def test_subtrees_sum_each_node_and_everything_below_it():
    tree = Tree(
        [
            r("root", input_tokens=10, estimated_cost_usd=0.5),
            r("a", "root", input_tokens=5, output_tokens=1),
            r("a1", "a", input_tokens=2, estimated_cost_usd=0.25),
            r("b", "root"),  # reports nothing
        ]
    )
    sums = subtrees(tree, "root")
    assert sums["a"] == Total(input_tokens=7, output_tokens=1, estimated_cost_usd=0.25, sessions=2)
    assert sums["root"].input_tokens == 17 and sums["root"].sessions == 4
    assert sums["root"].unknown == 1 and "(1 without figures)" in sums["root"].describe()
    assert sums["root"] == of_rows(tree.rows.values())


def test_a_parent_loop_is_summed_once_and_ends():
    tree = Tree([r("x", "y", input_tokens=1), r("y", "x", input_tokens=2)])
    sums = subtrees(tree, "x")
    assert sums["x"].input_tokens == 3 and sums["x"].sessions == 2


def test_the_chain_starts_at_the_first_session_that_is_not_a_continuation():
    tree = Tree([r("root"), r("c1", "root"), r("tip", "c1"), r("d", "tip")])
    kinds = {"root": ROOT, "c1": CONTINUATION, "tip": CONTINUATION, "d": DELEGATE}
    assert chain_root(tree, kinds, "tip") == "root"
    assert chain_root(tree, kinds, "d") == "d"


def test_a_hostile_title_and_the_totals_are_escaped_in_the_dot_tooltip():
    row = {"id": "s", "title": '"];evil[label="x', "usage_text": "Subtree: 2 sessions"}
    dot = graph.to_dot(
        _display(Node("s", row, ROOT, 0)), url_for=lambda i: f"/s/{i}", expand_url_for=str
    )
    assert 'tooltip="root: \\"];evil[label=\\"x (s). Subtree: 2 sessions"' in dot


def _display(node):
    from hermes_ui.lineage.graph.display import Display

    return Display(node, 1, 1, [], "s", "")
