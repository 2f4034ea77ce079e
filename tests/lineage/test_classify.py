"""Edge kinds from the fields the API shows: one test per case (pure)."""

from hermes_ui.lineage.graph.classify import (
    BRANCH,
    CONTINUATION,
    DELEGATE,
    ORPHAN,
    ROOT,
    edge_kind,
    is_orphan,
    kinds_of,
    node_kind,
)


def row(session_id, parent=None, **fields):
    return {
        "id": session_id,
        "parent_session_id": parent,
        "source": "cli",
        "started_at": 100.0,
        "ended_at": None,
        "end_reason": None,
        **fields,
    }


def test_no_parent_is_a_root():
    assert edge_kind(row("a"), None) == ROOT
    assert node_kind(row("a"), None) == ROOT


def test_child_of_a_compressed_parent_is_a_continuation():
    parent = row("p", end_reason="compression", ended_at=150.0)
    assert edge_kind(row("c", "p", started_at=150.5), parent) == CONTINUATION


def test_child_of_a_branched_parent_started_after_is_a_branch():
    parent = row("p", end_reason="branched", ended_at=150.0)
    assert edge_kind(row("b", "p", started_at=160.0), parent) == BRANCH


def test_child_started_before_the_branch_point_is_not_a_branch():
    parent = row("p", end_reason="branched", ended_at=150.0)
    assert edge_kind(row("d", "p", started_at=120.0), parent) == DELEGATE


def test_subagent_children_are_delegates_whatever_the_parent_ended_with():
    for reason in (None, "branched", "compression", "agent_close"):
        parent = row("p", end_reason=reason, ended_at=150.0 if reason else None)
        assert edge_kind(row("s", "p", source="subagent", started_at=160.0), parent) == DELEGATE


def test_other_children_of_an_open_parent_are_delegates():
    assert edge_kind(row("x", "p", source="api_server"), row("p")) == DELEGATE


def test_a_fork_this_dashboard_made_is_a_branch_even_of_a_closed_parent():
    """API forks of an already-ended parent keep its first close reason."""
    parent = row("p", end_reason="user_closed", ended_at=150.0)
    child = row("f", "p", source="api_server", started_at=200.0)
    assert edge_kind(child, parent) == DELEGATE
    assert edge_kind(child, parent, forked_by_us=True) == BRANCH
    compressed = row("p", end_reason="compression", ended_at=150.0)
    assert edge_kind(child, compressed, forked_by_us=True) == BRANCH


def test_a_child_seen_in_the_default_list_is_a_branch():
    """The provider only lists a child carrying the branch marker (or passing its test)."""
    parent = row("p", end_reason="compression", ended_at=150.0)
    assert edge_kind(row("b", "p"), parent, visible=True) == BRANCH


def test_a_child_whose_parent_cannot_be_read():
    assert edge_kind(row("c", "gone"), None) == BRANCH
    assert edge_kind(row("c", "gone", source="subagent"), None) == DELEGATE


def test_an_orphan_is_a_root_whose_indexed_parent_vanished():
    orphan = row("b", former_parent_id="p")
    assert is_orphan(orphan, {"p"})
    assert node_kind(orphan, None, known_gone={"p"}) == ORPHAN
    # The parent still exists: not an orphan (the provider never unlinks otherwise).
    assert node_kind(orphan, None, known_gone=set()) == ROOT
    # A row that still has a parent is not an orphan, whatever it remembers.
    assert not is_orphan(row("b", "q", former_parent_id="p"), {"p"})


def test_kinds_of_reads_the_index_fields():
    rows = [
        row("r", end_reason="compression", ended_at=150.0),
        row("c", "r", started_at=151.0),
        row("v", "r", visible_in_default_list=True),
        row("f", "r"),
        row("o", former_parent_id="deleted"),
    ]
    kinds = kinds_of(rows, forked_ids={"f"}, known_gone={"deleted"})
    assert kinds == {"r": ROOT, "c": CONTINUATION, "v": BRANCH, "f": BRANCH, "o": ORPHAN}
