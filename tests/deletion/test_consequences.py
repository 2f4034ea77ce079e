"""Consequences of a delete, computed from captured administrative-list rows."""

from hermes_ui.lineage.graph.consequences import compute
from tests.support.samples import sample

ROWS = sample("201_list_lineage_children")["body"]["data"]


def ids(items):
    return {item.id for item in items}


def test_delegates_cascade_recursively_and_the_branch_survives_as_the_provider_did():
    found = compute(ROWS, "fx_del_parent")
    # What the real provider did with this very fixture (samples 240-242).
    gone = {
        sample(f"242_get_{sid}")["request"]["path"].rsplit("/", 1)[1]
        for sid in ("fx_del_delegate1", "fx_del_delegate2", "fx_del_grandchild")
    }
    assert all(sample(f"242_get_{sid}")["status"] == 404 for sid in gone)
    assert ids(found.cascade) == gone
    kept = sample("241_get_fixture_branch")["body"]["session"]
    assert ids(found.survivors) == {kept["id"]} and kept["parent_session_id"] is None
    grandchild = next(a for a in found.cascade if a.id == "fx_del_grandchild")
    assert (grandchild.parent_id, grandchild.depth) == ("fx_del_delegate1", 2)
    assert found.deleted_ids[0] == "fx_del_parent"
    assert not any(a.inferred for a in found.cascade)  # all spawned subagents


def test_a_compression_root_keeps_its_continuation_as_a_new_root():
    found = compute(ROWS, "20261122_110000_308774")
    assert found.cascade == []
    assert [(a.id, a.kind) for a in found.survivors] == [("20261122_110227_e805da", "continuation")]


def test_a_delegate_parent_loses_both_subagents_and_nothing_survives():
    found = compute(ROWS, "20261122_133535_73c8eb5b")
    assert ids(found.cascade) == {"20261122_133629_26a6fc", "20261122_133608_171ac8"}
    assert found.survivors == []


def test_branches_of_a_branched_parent_survive():
    found = compute(ROWS, "fork-src")
    assert found.cascade == []
    assert {"api_1796212047_99921385", "fork/slash", "fork-custom"} <= ids(found.survivors)
    assert all(a.kind == "branch" for a in found.survivors)


def test_an_unmarked_child_of_a_closed_parent_is_an_inferred_delegate_unless_known_a_branch():
    guessed = compute(ROWS, "ended-src")
    assert [(a.id, a.inferred) for a in guessed.cascade] == [("fork-of-ended", True)]
    forked = compute(ROWS, "ended-src", forked_ids={"fork-of-ended"})
    assert forked.cascade == [] and ids(forked.survivors) == {"fork-of-ended"}
    seen = compute(ROWS, "ended-src", visible_ids={"fork-of-ended"})
    assert seen.cascade == [] and ids(seen.survivors) == {"fork-of-ended"}


def test_an_unlisted_target_uses_its_own_row_and_a_leaf_has_no_consequences():
    rows = [r for r in ROWS if r["id"] != "fx_del_parent"]  # as if archived
    target = next(r for r in ROWS if r["id"] == "fx_del_parent")
    found = compute(rows, "fx_del_parent", target_row=target)
    assert ids(found.survivors) == {"fx_del_branch"}
    assert len(found.cascade) == 3
    leaf = compute(ROWS, "peer-demo")
    assert leaf.cascade == [] and leaf.survivors == []


def test_a_parent_loop_ends():
    rows = [
        {"id": "a", "parent_session_id": "b", "source": "subagent"},
        {"id": "b", "parent_session_id": "a", "source": "subagent"},
    ]
    found = compute(rows, "a")
    assert ids(found.cascade) == {"b"}


def test_as_dict_round_trips_through_json():
    import json

    data = json.loads(json.dumps(compute(ROWS, "fx_del_parent").as_dict()))
    assert data["target_id"] == "fx_del_parent"
    assert {c["id"] for c in data["cascade"]} == {
        "fx_del_delegate1",
        "fx_del_delegate2",
        "fx_del_grandchild",
    }
    assert data["listed_rows"] == len(ROWS)
