"""The pure parts of compare: the fork point, the word diff, the deltas."""

from hermes_ui.compare import align, deltas
from hermes_ui.hermes import Session, transcript


def msg(role, content, **extra):
    return {"id": extra.pop("id", 0), "role": role, "content": content, **extra}


def test_the_fork_point_is_the_longest_common_prefix_by_role_and_content():
    shared = [msg("user", "plan a trip", id=1), msg("assistant", "Where to?", id=2)]
    # Copies carry other ids and times: only role and content decide.
    copies = [msg("user", "plan a trip", id=11, timestamp=5), msg("assistant", "Where to?", id=12)]
    a = [*shared, msg("user", "Lisbon in May"), msg("assistant", "Lisbon is warm in May")]
    b = [*copies, msg("user", "Porto in May")]
    found = align.align(a, b)
    assert found.shared == 2
    assert (found.a_only, found.b_only) == (2, 1)
    assert len(found.pairs) == 2
    first = found.pairs[0]
    assert first.a.number == first.b.number == 3
    assert (align.REMOVED, "Lisbon") in first.a.pieces
    assert (align.INSERT, "Porto") in first.b.pieces
    # B has nothing opposite A's last message.
    assert found.pairs[1].b is None and found.pairs[1].a.pieces == [
        (align.SAME, "Lisbon is warm in May")
    ]


def test_same_role_different_role_and_identical_transcripts():
    assert align.common_prefix([msg("user", "x")], [msg("assistant", "x")]) == 0
    same = [msg("user", "x"), msg("assistant", "y")]
    assert align.align(same, list(same)).identical
    # Different roles are shown whole, never diffed against each other.
    pair = align.align([msg("user", "a b")], [msg("tool", "a c")]).pairs[0]
    assert pair.a.pieces == [(align.SAME, "a b")] and pair.b.pieces == [(align.SAME, "a c")]


def test_tool_calls_count_in_the_digest_and_the_text():
    call = [{"id": "c1", "function": {"name": "df", "arguments": '{"path": "/"}'}}]
    a, b = msg("assistant", "", tool_calls=call), msg("assistant", "")
    assert align.message_key(a) != align.message_key(b)
    assert "df(" in transcript.plain_text(a)


def test_divergent_rows_beyond_the_cap_are_counted_not_drawn():
    a = [msg("user", f"a{i}") for i in range(10)]
    b = [msg("user", f"b{i}") for i in range(12)]
    found = align.align(a, b, max_pairs=5)
    assert len(found.pairs) == 5 and found.hidden_pairs == 7


def test_deltas_compare_rows_and_transcripts():
    a = Session.from_row(
        {
            "id": "a",
            "input_tokens": 100,
            "output_tokens": 7,
            "estimated_cost_usd": 0.5,
            "tool_call_count": 1,
        }
    )
    b = Session.from_row(
        {
            "id": "b",
            "input_tokens": 140,
            "output_tokens": 7,
            "ended_at": 5.0,
            "end_reason": "branched",
        }
    )
    rows_a = [
        msg("assistant", "x", finish_reason="stop"),
        msg("assistant", "y", finish_reason="stop"),
    ]
    rows_b = [
        msg("assistant", "", finish_reason="tool_calls", tool_calls=[{"id": "1"}, {"id": "2"}])
    ]
    found = {d.label: d for d in deltas.deltas(a, b, rows_a, rows_b)}
    assert found["Input tokens"].change == 40
    assert not found["Output tokens"].differs
    assert found["Tool calls in the transcript"].b == 2
    assert found["Finish reasons"].a == "stop (2)"
    assert found["End reason"].a == "open" and found["End reason"].b == "branched"
    assert found["Estimated cost"].change is None  # B does not know its cost
    # A side whose transcript cannot be read has no transcript figures.
    assert deltas.deltas(a, b, None, rows_b)[0].a is None
