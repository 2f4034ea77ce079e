"""Tree helpers and the compression tip, resolved like the provider (pure)."""

from hermes_ui.lineage.graph.tip import chain_of, compression_tip
from hermes_ui.lineage.graph.tree import Tree


def row(session_id, parent=None, **fields):
    return {
        "id": session_id,
        "parent_session_id": parent,
        "source": "cli",
        "started_at": 100.0,
        "ended_at": None,
        "end_reason": None,
        "last_active": 100.0,
        **fields,
    }


def compressed(session_id, parent=None, at=100.0):
    return row(session_id, parent, end_reason="compression", ended_at=at + 50, started_at=at)


def test_children_descendants_ancestors_and_root():
    tree = Tree(
        [
            row("r"),
            row("a", "r", started_at=2),
            row("b", "r", started_at=1),
            row("a1", "a"),
            row("x"),
        ]
    )
    assert tree.children_of("r") == ["b", "a"]  # by start time
    assert tree.descendants("r") == ["b", "a", "a1"]
    assert tree.ancestors("a1") == ["a", "r"]
    assert tree.root_of("a1") == "r"
    assert set(tree.roots()) == {"r", "x"}
    assert [i for i, _ in tree.walk("r")] == ["r", "b", "a", "a1"]
    assert tree.subtree_sizes("r") == {"r": 4, "a": 2, "b": 1, "a1": 1}


def test_a_parent_loop_never_hangs():
    tree = Tree([row("a", "b"), row("b", "a")])
    assert tree.ancestors("a") == ["b"]
    assert sorted(tree.descendants("a")) == ["b"]
    assert tree.roots() == ["a"]
    assert len(list(tree.walk("a"))) == 2


def test_the_tip_follows_the_chain_to_its_end():
    tree = Tree([compressed("r"), compressed("c1", "r", 151), row("tip", "c1", started_at=202)])
    assert compression_tip(tree, "r") == "tip"
    assert compression_tip(tree, "c1") == "tip"
    assert compression_tip(tree, "tip") == "tip"
    assert chain_of(tree, "r") == ["r", "c1", "tip"]


def test_an_uncompressed_session_is_its_own_tip():
    tree = Tree([row("p", end_reason="branched", ended_at=5), row("b", "p")])
    assert compression_tip(tree, "p") == "p"


def test_the_provider_prefers_a_compressed_child_then_an_open_one():
    rows = [
        compressed("r"),
        row("stale", "r", end_reason="ws_orphan_reap", ended_at=900, last_active=999),
        row("open", "r", last_active=500),
        compressed("again", "r", at=300),
        row("end", "again", last_active=400),
    ]
    assert compression_tip(Tree(rows), "r") == "end"
    assert compression_tip(Tree(rows[:3]), "r") == "open"
    assert compression_tip(Tree(rows[:2]), "r") == "stale"


def test_among_equals_the_latest_activity_then_start_then_id_wins():
    base = [compressed("r")]
    later = [row("a", "r", last_active=5), row("b", "r", last_active=9)]
    assert compression_tip(Tree([*base, *later]), "r") == "b"
    same = [row("a", "r", started_at=7), row("b", "r", started_at=3)]
    assert compression_tip(Tree([*base, *same]), "r") == "a"
    ties = [row("a", "r"), row("b", "r")]
    assert compression_tip(Tree([*base, *ties]), "r") == "b"  # id DESC


def test_branches_delegates_and_tool_rows_are_not_continuations():
    rows = [
        compressed("r"),
        row("listed", "r", visible_in_default_list=True, last_active=999),
        row("sub", "r", source="subagent", last_active=998),
        row("tool", "r", source="tool", last_active=997),
        row("real", "r", last_active=1),
    ]
    assert compression_tip(Tree(rows), "r") == "real"
    assert compression_tip(Tree(rows[:4]), "r") == "r"


def test_an_unmarked_api_fork_can_capture_the_tip_like_in_hermes():
    """The provider cannot tell an API fork from a continuation; neither can we."""
    rows = [
        compressed("r"),
        row("cont", "r", end_reason="cli_close", ended_at=300),
        row("fork", "r", source="api_server", last_active=50),
    ]
    assert compression_tip(Tree(rows), "r") == "fork"


def test_a_loop_in_a_compression_chain_stops():
    tree = Tree([compressed("a", "b"), compressed("b", "a")])
    assert compression_tip(tree, "a") == "b"
