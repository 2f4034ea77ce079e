"""Redaction shapes, the Luhn check, and the count of masks."""

import pytest

from hermes_ui.export.redact import Redactor, luhn_ok, message


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("key sk-proj-Abcdefghij0123456789xyz", "api_key"),
        ("aws AKIAIOSFODNN7EXAMPLE here", "api_key"),
        ("gh ghp_0123456789abcdefghijABCDEFGHIJ012345", "api_key"),
        ("Authorization: Bearer eyJhbGciOi.payload-part_1234", "bearer"),
        ("write to jo.doe+x@example.co.uk today", "email"),
        ("call +44 20 7946 0958 now", "phone"),
        ("call (555) 123-4567 now", "phone"),
        ("call 555-123-4567 now", "phone"),
        ("pay 4111 1111 1111 1111 now", "card"),
        ("pay 5500-0000-0000-0004 now", "card"),
    ],
)
def test_each_shape_is_masked_and_counted(text, kind):
    redactor = Redactor(True)
    masked = redactor.text(text)
    assert redactor.by_kind == {kind: 1}
    assert "[redacted:" in masked


@pytest.mark.parametrize(
    "text",
    ["order 4111 1111 1111 1112", "on 2026-11-01 at 10:15", "host 192.168.10.20",
     "ts 1796212043", "version 0.19.0", "see sk-short"],
)  # fmt: skip
def test_lookalikes_are_kept(text):
    redactor = Redactor(True)
    assert redactor.text(text) == text
    assert redactor.count == 0


def test_luhn():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")


def test_only_text_fields_of_a_message_are_masked_and_off_means_untouched():
    row = {"id": 7, "role": "user", "session_id": "a@b.cd", "content": "mail a@b.cd",
           "tool_calls": [{"function": {"arguments": '{"to": "x@y.org"}'}}]}  # fmt: skip
    redactor = Redactor(True)
    out = message(redactor, row)
    assert out["session_id"] == "a@b.cd" and out["id"] == 7
    assert out["content"] == "mail [redacted:email]"
    assert "x@y.org" not in out["tool_calls"][0]["function"]["arguments"]
    assert redactor.count == 2
    off = Redactor(False)
    assert message(off, row) is row and off.count == 0


def test_a_session_rows_user_id_is_masked_whole_and_counted():
    from hermes_ui.export.redact import session_row

    row = {"id": "s1", "title": "mail a@b.cd", "user_id": "412733001", "source": "telegram"}
    redactor = Redactor(True)
    out = session_row(redactor, row)
    assert out["user_id"] == "[redacted:user]" and out["title"] == "mail [redacted:email]"
    assert out["id"] == "s1" and out["source"] == "telegram"
    assert redactor.by_kind == {"email": 1, "user": 1} and redactor.count == 2
    assert row["user_id"] == "412733001"  # the provider's row is not changed in place
    empty = Redactor(True)
    assert session_row(empty, {"id": "s2", "user_id": None})["user_id"] is None
    assert empty.count == 0
    off = Redactor(False)
    assert session_row(off, row) is row and off.count == 0
