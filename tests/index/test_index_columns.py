"""Index columns hold what every database accepts (PostgreSQL is stricter than SQLite)."""

from hermes_ui.chat.store import without_nul
from hermes_ui.index import rows
from hermes_ui.index.store import storable_id


def test_text_loses_nul_and_out_of_range_numbers_become_unknown():
    cols = rows.columns(
        {
            "title": "a\x00b",
            "message_count": 2**31,
            "input_tokens": 2**63,
            "tool_call_count": 7,
            "output_tokens": 2**40,
        }
    )
    assert cols["title"] == "ab"
    assert cols["message_count"] is None and cols["input_tokens"] is None
    assert cols["tool_call_count"] == 7 and cols["output_tokens"] == 2**40


def test_ids_the_column_cannot_hold_are_not_indexed():
    assert storable_id("20261101_090000_a1c0de")
    assert not storable_id("x" * 301)
    assert not storable_id("a\x00b")
    assert not storable_id("")
    assert not storable_id(None)


def test_turn_text_and_events_lose_nul_everywhere():
    event = {"delta": "a\x00b", "parts": [{"text": "c\x00"}], "n": 1}
    assert without_nul(event) == {"delta": "ab", "parts": [{"text": "c"}], "n": 1}
