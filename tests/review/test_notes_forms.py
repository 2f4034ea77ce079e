"""The forms of notes, corrections and mentions: bad input is a message, not a crash."""

import pytest

from hermes_ui.review.note_forms import (
    CORRECTION_MAX,
    NOTE_MAX,
    CorrectionForm,
    MarkReadForm,
    MessageQuery,
    NoteForm,
)


def test_a_note_keeps_its_text_and_message():
    form = NoteForm({"body": "  two\nlines  ", "message": "7"})
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {"body": "two\nlines", "message": 7}


def test_a_session_note_has_no_message():
    form = NoteForm({"body": "hello"})
    assert form.is_valid()
    assert form.cleaned_data["message"] is None


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"body": ""}, "body"),
        ({"body": "   \n "}, "body"),
        ({"body": "x" * (NOTE_MAX + 1)}, "body"),
        ({"body": "a\x00b"}, "body"),
        ({"body": "ok", "message": "-1"}, "message"),
        ({"body": "ok", "message": "two"}, "message"),
    ],
)
def test_bad_notes_are_form_errors(data, field):
    form = NoteForm(data)
    assert not form.is_valid()
    assert field in form.errors


def test_a_correction_names_its_message():
    assert "message" in CorrectionForm({"text": "better"}).errors
    assert "text" in CorrectionForm({"message": "2", "text": ""}).errors
    assert "text" in CorrectionForm({"message": "2", "text": "x" * (CORRECTION_MAX + 1)}).errors
    form = CorrectionForm({"message": "2", "text": "better"})
    assert form.is_valid() and form.cleaned_data == {"message": 2, "text": "better"}


def test_mark_read_needs_one_mention_or_all():
    assert not MarkReadForm({}).is_valid()
    assert not MarkReadForm({"mention": "0"}).is_valid()
    assert MarkReadForm({"mention": "3"}).is_valid()
    assert MarkReadForm({"all": "1"}).is_valid()


def test_the_message_query():
    assert MessageQuery({}).is_valid()
    assert not MessageQuery({"message": "x"}).is_valid()
    query = MessageQuery({"message": "12"})
    assert query.is_valid() and query.cleaned_data["message"] == 12
