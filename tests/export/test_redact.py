"""Redaction shapes, the Luhn check, and the count of masks."""

import time

import pytest

from hermes_ui.platform.redaction import Redactor, luhn_ok, message


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("key sk-proj-Abcdefghij0123456789xyz", "api_key"),
        ("aws AKIAIOSFODNN7EXAMPLE here", "api_key"),
        ("gh ghp_0123456789abcdefghijABCDEFGHIJ012345", "api_key"),
        ("Hermes masked it: sk-liv...4gH6.", "api_key"),  # Hermes' own head...tail
        ("aws AKIAIO...MPLE here", "api_key"),
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
    [
        "order 4111 1111 1111 1112",
        "on 2026-11-01 at 10:15",
        "host 192.168.10.20",
        "ts 1796212043",
        "version 0.19.0",
        "see sk-short",
        "wait...what, then sk-...",
    ],
)
def test_lookalikes_are_kept(text):
    redactor = Redactor(True)
    assert redactor.text(text) == text
    assert redactor.count == 0


def test_luhn():
    assert luhn_ok("4111111111111111") and not luhn_ok("4111111111111112")


def test_only_text_fields_of_a_message_are_masked_and_off_means_untouched():
    row = {
        "id": 7,
        "role": "user",
        "session_id": "a@b.cd",
        "content": "mail a@b.cd",
        "tool_calls": [{"function": {"arguments": '{"to": "x@y.org"}'}}],
    }
    redactor = Redactor(True)
    out = message(redactor, row)
    assert out["session_id"] == "a@b.cd" and out["id"] == 7
    assert out["content"] == "mail [redacted:email]"
    assert "x@y.org" not in out["tool_calls"][0]["function"]["arguments"]
    assert redactor.count == 2
    off = Redactor(False)
    assert message(off, row) is row and off.count == 0


def test_a_session_rows_user_id_is_masked_whole_and_counted():
    from hermes_ui.platform.redaction import session_row

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


def test_a_long_local_part_keeps_at_most_its_last_64_characters_visible_and_runs_resume():
    redactor = Redactor(True)
    assert redactor.text("a" * 70 + "@example.com") == "a" * 6 + "[redacted:email]"
    # A match that ends inside a run of local-part characters does not hide the next one.
    assert redactor.text("a@b.com.x@c.org") == "[redacted:email][redacted:email]"
    assert redactor.by_kind == {"email": 3}


# Linear time. Every pattern is tried from every position of the text, so a
# pattern that scans to the end of a long run before failing costs n x n steps:
# the unbounded e-mail pattern took 22 s on 200,000 letters. Each run below is
# one character class repeated (or a shape the patterns start on, repeated) to
# 200,000 characters; CPU time of this thread, so other processes on the
# machine do not count. Linear patterns take well under 0.1 s a run.
RUN = 200_000
LIMIT_SECONDS = 1.0
UNITS = {
    "letters": "a",
    "capitals": "Z",
    "digits": "7",
    "dots": ".",
    "dashes": "-",
    "underscores": "_",
    "plus signs": "+",
    "percent signs": "%",
    "at signs": "@",
    "spaces": " ",
    "newlines": "\n",
    "non-ascii digits": "²",
    "accents": "é",
    "local-part mix": "a1._%+-",
    "letters and digits": "a1",
    "words and dashes": "ab-",
    "letters and dots": "a.",
    "letters and at signs": "a@",
    "at dot": "@a.",
    "digits and spaces": "1 ",
    "digits and dashes": "1-",
    "digits and dots": "1.",
    "plus and digits": "+1",
    "plus, digit, space": "+1 ",
    "bracketed digits": "(1)",
    "area codes": "(12) ",
    "sk- prefixes": "sk-",
    "sk- segments": "sk-a",
    "GitHub prefixes": "ghp_",
    "GitHub PAT prefixes": "github_pat_",
    "Slack prefixes": "xoxb-",
    "AWS prefixes": "AKIA",
    "Google prefixes": "AIza",
    "Hugging Face prefixes": "hf_",
    "Bearer words": "Bearer ",
    "bearer and tabs": "bearer\t",
}


def _repeat(unit: str, length: int = RUN) -> str:
    return (unit * (length // len(unit) + 1))[:length]


def _long_runs():
    for kind, unit in UNITS.items():
        yield kind, _repeat(unit)
    yield "one @ after letters", "a" * (RUN - 2) + "@a"
    yield "domain of labels", "a@" + _repeat("a.", RUN - 2)
    yield "domain of dashes", "a@" + _repeat("a-", RUN - 2)
    # Each @ reached from 64 starts, each followed by a long domain with no TLD.
    yield "failing domains", _repeat("a" * 64 + "@" + "a-" * 2000 + "!")
    yield "failing labels", _repeat("a" * 64 + "@" + ("1" + "a" * 62 + ".") * 126 + "!")


def _patterns():
    from hermes_ui.audit import logfilter
    from hermes_ui.platform import redaction as redact

    return {
        "api_key": redact._API_KEY,
        "bearer": redact._BEARER,
        "email": redact._EMAIL,
        "card": redact._CARD,
        "phone": redact._PHONE,
        "log bearer": logfilter._BEARER,
    }


def _cpu_seconds(work) -> float:
    start = time.thread_time()
    work()
    return time.thread_time() - start


@pytest.mark.parametrize("name", list(_patterns()))
def test_each_redaction_pattern_is_linear_on_long_runs_of_every_character_class(name):
    pattern = _patterns()[name]
    total = 0.0
    for kind, text in _long_runs():
        took = _cpu_seconds(lambda text=text: pattern.sub("", text))
        assert took < LIMIT_SECONDS, f"{name} on 200k {kind}: {took:.2f} s"
        total += took
    assert total < 2 * LIMIT_SECONDS, f"{name} on all {len(UNITS) + 5} runs: {total:.2f} s"


def test_redacting_long_runs_is_linear_end_to_end():
    for kind, text in _long_runs():
        took = _cpu_seconds(lambda text=text: Redactor(True).text(text))
        assert took < LIMIT_SECONDS, f"Redactor.text on 200k {kind}: {took:.2f} s"
