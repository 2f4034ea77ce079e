"""The changes forms validate the way Hermes will: titles, ids, close reasons, keys."""

import json
import subprocess

import pytest

from devtools.peer.launcher import DEFAULT_PEER_VENV
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.changes.forms import (
    CloseForm,
    CreateForm,
    ForkForm,
    RenameForm,
    TitleTooLong,
    clean_title,
)

TITLES = [
    "",
    "   ",
    "plain",
    "  padded  ",
    "tabs\tand\nnew\r\nlines",
    "bell\x07 and \x00 nul and \x7f del",
    "zero\u200bwidth\u200c\u200d\u200e\u200f joiners",
    "bidi \u202aembed\u202e override\u2066isolate\u2069",
    "line\u2028and\u2029paragraph separators",
    "word\u2060joiner \ufeffbom \ufffcobject \ufff9\ufffa\ufffbannotation",
    "nbsp\u00a0and ideographic\u3000space",
    "\u200b\u200b",
    "lone \ud800 surrogate",
    "emoji 🚀 and 日本語 stay",
    "T" * 100,
    "T" * 101,
    " " + "T" * 100 + " \u200b",
    "x  " * 40,
]


@pytest.mark.peer
def test_clean_title_is_sanitize_title_exactly():
    """Run hermes-agent 0.19.0's own SessionDB.sanitize_title on the same inputs."""
    script = (
        "import json,sys\nfrom hermes_state import SessionDB\nout=[]\n"
        "for t in json.loads(sys.stdin.read()):\n"
        "    try: out.append(['ok', SessionDB.sanitize_title(t)])\n"
        "    except ValueError: out.append(['too_long', None])\n"
        "print(json.dumps(out))\n"
    )
    done = subprocess.run(
        [str(DEFAULT_PEER_VENV / "bin" / "python"), "-c", script],
        input=json.dumps(TITLES),
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    theirs = json.loads(done.stdout)
    ours = []
    for title in TITLES:
        try:
            ours.append(["ok", clean_title(title)])
        except TitleTooLong:
            ours.append(["too_long", None])
    assert ours == theirs


def test_title_rules_in_the_forms():
    key = mint_key()
    assert RenameForm({"key": key, "title": " a \u200b b "}).is_valid()
    form = RenameForm({"key": key, "title": "T" * 101})
    assert not form.is_valid() and "at most 100 characters" in form.errors["title"][0]
    empty = RenameForm({"key": key, "title": "\u200b"})
    assert empty.is_valid() and empty.cleaned_data["title"] is None  # empty clears


@pytest.mark.parametrize("form_class", [CreateForm, ForkForm])
@pytest.mark.parametrize("bad", ["..", "../x", "a/b", "a\\b", "C:x", "   ", "x" * 257, "a\tb"])
def test_create_and_fork_ids_follow_the_create_rules(form_class, bad):
    field = "session_id" if form_class is CreateForm else "child_id"
    form = form_class({"key": mint_key(), field: bad})
    assert not form.is_valid() and field in form.errors


@pytest.mark.parametrize("form_class", [CreateForm, ForkForm])
def test_an_empty_id_lets_hermes_generate_one(form_class):
    field = "session_id" if form_class is CreateForm else "child_id"
    form = form_class({"key": mint_key(), field: ""})
    assert form.is_valid() and form.cleaned_data[field] is None
    padded = form_class({"key": mint_key(), field: "  kid-1  "})
    assert padded.is_valid() and padded.cleaned_data[field] == "kid-1"


@pytest.mark.parametrize("reason", ["client_closed", "resolved", "duplicate", "abandoned"])
def test_common_close_reasons(reason):
    form = CloseForm({"key": mint_key(), "reason": reason, "other": "ignored"})
    assert form.is_valid() and form.cleaned_data["end_reason"] == reason


def test_free_text_close_reasons():
    ok = CloseForm({"key": mint_key(), "reason": "other", "other": " handoff_to_human "})
    assert ok.is_valid() and ok.cleaned_data["end_reason"] == "handoff_to_human"
    for bad in ["", "   ", "bad\x00reason", "zero\u200bwidth", "x" * 65]:
        assert not CloseForm({"key": mint_key(), "reason": "other", "other": bad}).is_valid()
    assert not CloseForm({"key": mint_key(), "reason": "reopen"}).is_valid()


@pytest.mark.parametrize("key", ["", "short", "has spaces in it here", "x" * 65])
def test_a_form_without_a_minted_key_is_refused(key):
    form = RenameForm({"key": key, "title": "x"})
    assert not form.is_valid() and "key" in form.errors


def test_create_keeps_only_what_was_given():
    form = CreateForm(
        {"key": mint_key(), "session_id": "", "title": "", "model": "  ", "system_prompt": "   "}
    )
    assert form.is_valid()
    data = form.cleaned_data
    assert (data["session_id"], data["title"], data["model"], data["system_prompt"]) == (
        None,
        None,
        None,
        None,
    )
