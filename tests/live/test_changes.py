"""The diff of index rows and the coalescing of events (pure functions)."""

from hermes_ui.live import changes as c

ROW = {
    "title": "a",
    "message_count": 2,
    "last_active": 10.0,
    "ended_at": None,
    "end_reason": "",
    "vanished_at": None,
}


def test_an_unchanged_row_has_no_kinds():
    assert c.kinds(ROW, dict(ROW)) == []


def test_each_watched_field_names_its_kind():
    assert c.kinds(ROW, {**ROW, "message_count": 4, "last_active": 12.0}) == [c.MESSAGES]
    assert c.kinds(ROW, {**ROW, "title": "b"}) == [c.RENAMED]
    assert c.kinds(ROW, {**ROW, "ended_at": 13.0, "end_reason": "user"}) == [c.CLOSED]
    closed = {**ROW, "ended_at": 13.0, "end_reason": "user"}
    assert c.kinds(closed, ROW) == [c.REOPENED]
    assert c.kinds(ROW, {**ROW, "title": "b", "last_active": 11.0}) == [c.MESSAGES, c.RENAMED]


def test_new_gone_and_unknown_rows():
    assert c.kinds(None, ROW, new=True) == [c.NEW]
    assert c.kinds({**ROW, "vanished_at": 1}, ROW) == [c.NEW]  # it came back
    assert c.kinds(ROW, {**ROW, "vanished_at": 1}) == [c.GONE]
    assert c.kinds({**ROW, "vanished_at": 1}, {**ROW, "vanished_at": 2}) == []
    assert c.kinds(None, ROW) == [c.CHANGED]


def test_a_change_of_another_column_alone_is_not_published():
    assert c.kinds(ROW, {**ROW, "input_tokens": 99}) == []


def test_coalesce_merges_each_id_once_with_its_kinds_in_order():
    found, more = c.coalesce(
        [
            ([["s1", [c.NEW]], ["s2", [c.RENAMED]]], 0),
            ([["s1", [c.MESSAGES]], ["s2", [c.RENAMED, c.CLOSED]]], 3),
        ]
    )
    assert found == [["s1", [c.NEW, c.MESSAGES]], ["s2", [c.RENAMED, c.CLOSED]]]
    assert more == 3


def test_coalesce_caps_the_ids_and_counts_the_rest():
    many = [[f"s{i}", [c.NEW]] for i in range(c.MAX_IDS + 7)]
    found, more = c.coalesce([(many, 2)])
    assert len(found) == c.MAX_IDS
    assert more == 9
