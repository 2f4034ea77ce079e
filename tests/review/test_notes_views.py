"""Notes, mentions and corrections through the views, against the fake Hermes (support/fakes.py).

The same behaviours are exercised against the real peer in test_notes_peer.py.
"""

import logging
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from hermes_ui.audit.models import AuditEvent
from hermes_ui.review.models import Correction, Mention, Note
from hermes_ui.web.links import session_url
from tests.review.notes_corpus import HOSTILE_TEXT, assert_escaped

pytestmark = pytest.mark.django_db
SID = "notes-s1"
HX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def notes_hermes(empty_hermes):
    empty_hermes.add(SID, title="Notes session")
    empty_hermes.messages[SID][1]["content"] = "The answer is forty two."
    return empty_hermes


def notes_url(message=None, sid=SID):
    query = {} if message is None else {"message": message}
    return session_url("local", sid, "review_notes", **query)


def correction_url(message, sid=SID):
    return session_url("local", sid, "review_correction", message=message)


def page(client, sid=SID) -> str:
    answer = client.get(session_url("local", sid))
    assert answer.status_code == 200
    return answer.content.decode()


# -- notes -------------------------------------------------------------------------------


def test_support_adds_a_session_note_and_sees_it_on_the_session_page(login, notes_hermes):
    support = login("support")
    answer = support.post(notes_url(), {"body": "Called the customer back.\nAll good."})
    assert answer.status_code == 302
    assert answer["Location"] == session_url("local", SID) + "#notes"
    note = Note.objects.get()
    assert (note.session_id, note.message_id, note.author_name) == (SID, None, "support")
    shown = page(support)
    assert "Called the customer back.<br>All good." in shown
    assert 'id="notes"' in shown


def test_a_note_on_a_message_is_in_that_messages_thread_only(login, notes_hermes):
    support = login("support")
    answer = support.post(notes_url(2), {"body": "This reply is wrong", "message": "2"})
    assert answer["Location"] == session_url("local", SID, upto=2) + "#msg-2"
    thread = support.get(notes_url(2)).content.decode()
    assert "This reply is wrong" in thread
    assert "The answer is forty two." in thread  # the message it is about, from Hermes
    assert "This reply is wrong" not in support.get(notes_url(1)).content.decode()
    assert "This reply is wrong" not in support.get(notes_url()).content.decode()
    shown = page(support)
    count = re.search(r'id="msg-note-count-2">(\d+)<', shown)
    assert count and count.group(1) == "1"
    assert re.search(r'id="msg-note-count-1">0<', shown)


def test_a_note_on_a_message_that_does_not_exist_is_refused(login, notes_hermes):
    answer = login("support").post(notes_url(99), {"body": "hello", "message": "99"})
    assert answer.status_code == 400
    assert "no such message" in answer.content.decode()
    assert not Note.objects.exists()


def test_a_note_on_an_unknown_session_is_refused(login, notes_hermes):
    answer = login("support").post(notes_url(sid="nope"), {"body": "hello"})
    assert answer.status_code == 404
    assert not Note.objects.exists()


def test_an_empty_note_is_a_form_error(login, notes_hermes):
    answer = login("support").post(notes_url(), {"body": "  "})
    assert answer.status_code == 400
    assert 'class="field-error"' in answer.content.decode()
    assert not Note.objects.exists()


def test_with_htmx_the_thread_swaps_in_place_with_the_new_count(login, notes_hermes):
    support = login("support")
    answer = support.post(notes_url(2), {"body": "first", "message": "2"}, **HX)
    body = answer.content.decode()
    assert answer.status_code == 200
    assert "<html" not in body and 'id="notes-msg-2"' in body
    assert re.search(r'id="msg-note-count-2" hx-swap-oob="true">1<', body)
    opened = support.get(notes_url(2), **HX).content.decode()
    assert "<html" not in opened and "first" in opened and "csrfmiddlewaretoken" in opened


def test_authors_delete_their_own_notes_admins_any(login, notes_hermes, colleague, users):
    support = login("support")
    support.post(notes_url(), {"body": "mine"})
    support.post(notes_url(), {"body": "also mine"})
    first, second = Note.objects.order_by("id")
    delete = lambda note: reverse("review_note_delete", args=["local", note.pk])  # noqa: E731
    assert colleague.post(delete(first)).status_code == 403
    assert login("reviewer").post(delete(first)).status_code == 403
    assert support.post(delete(first))["Location"] == session_url("local", SID) + "#notes"
    assert login("admin").post(delete(second)).status_code == 302
    assert not Note.objects.exists()
    events = AuditEvent.objects.filter(capability="review.note_delete").order_by("id")
    assert [e.username for e in events] == ["support", "admin"]


def test_the_delete_button_is_shown_to_the_author_and_admins_only(login, notes_hermes, colleague):
    login("support").post(notes_url(), {"body": "mine"})
    assert "note-delete" in page(login("support"))
    assert "note-delete" in page(login("admin"))
    assert "note-delete" not in page(colleague)


def test_notes_are_audited_without_their_text(login, notes_hermes):
    login("support").post(notes_url(2), {"body": "secret-canary @reviewer", "message": "2"})
    event = AuditEvent.objects.get(capability="review.note_add")
    assert event.evidence == {
        "id": Note.objects.get().pk,
        "session_id": SID,
        "message_id": 2,
        "length": len("secret-canary @reviewer"),
        "count": 1,
    }
    assert "secret-canary" not in str(AuditEvent.objects.values_list("evidence", flat=True))


def test_notes_and_corrections_never_reach_the_logs(login, notes_hermes, caplog):
    canary = "log-canary-7f3a"
    with caplog.at_level(logging.DEBUG):
        login("support").post(notes_url(2), {"body": f"{canary} @reviewer", "message": "2"})
        login("support").post(notes_url(), {"body": ""})  # a refused form, too
        reviewer = login("reviewer")
        reviewer.post(correction_url(2), {"message": "2", "text": canary})
        reviewer.post(correction_url(1), {"message": "1", "text": canary})  # refused: a user's
        reviewer.get(reverse("mentions"))
    assert Note.objects.count() == 1 and Correction.objects.count() == 1
    assert caplog.records, "nothing was logged at all: the capture is not working"
    for record in caplog.records:
        assert canary not in record.getMessage()
        assert canary not in repr(record.args)


# -- corrections -------------------------------------------------------------------------


def test_a_reviewer_corrects_an_assistant_message_and_sees_a_word_diff(login, notes_hermes):
    reviewer = login("reviewer")
    form = reviewer.get(correction_url(2)).content.decode()
    assert "The answer is forty two.</textarea>" in form  # starts from what it said
    answer = reviewer.post(correction_url(2), {"message": "2", "text": "The answer is 42."})
    assert answer["Location"] == session_url("local", SID, upto=2) + "#msg-2"
    shown = page(reviewer)
    assert "<del>forty two</del>" in shown
    assert "<ins>42</ins>" in shown
    assert "Edit my correction" in shown


def test_one_correction_per_reviewer_per_message_edited_by_its_author(login, notes_hermes):
    reviewer = login("reviewer")
    reviewer.post(correction_url(2), {"message": "2", "text": "first try"})
    reviewer.post(correction_url(2), {"message": "2", "text": "second try"})
    login("admin").post(correction_url(2), {"message": "2", "text": "the admin's"})
    texts = dict(Correction.objects.values_list("author_name", "text"))
    assert texts == {"reviewer": "second try", "admin": "the admin's"}
    assert "second try</textarea>" in reviewer.get(correction_url(2)).content.decode()
    events = AuditEvent.objects.filter(capability="review.correction_save").order_by("id")
    assert [e.evidence["created"] for e in events] == [True, False, True]
    keys = {"id", "session_id", "message_id", "length", "created"}
    assert all(set(e.evidence) == keys for e in events)


def test_the_original_comes_from_hermes_not_from_the_form(login, notes_hermes):
    reviewer = login("reviewer")
    reviewer.post(
        correction_url(2),
        {"message": "2", "text": "The answer is 42.", "original": "Forged original text"},
    )
    shown = page(reviewer)
    assert "Forged original" not in shown
    assert "<del>forty two</del>" in shown


def test_only_assistant_messages_can_be_corrected(login, notes_hermes):
    reviewer = login("reviewer")
    assert reviewer.get(correction_url(1)).status_code == 400
    answer = reviewer.post(correction_url(1), {"message": "1", "text": "x"})
    assert answer.status_code == 400 and "assistant" in answer.content.decode()
    assert reviewer.post(correction_url(9), {"message": "9", "text": "x"}).status_code == 400
    assert not Correction.objects.exists()


def test_support_cannot_correct_and_sees_no_link(login, notes_hermes):
    support = login("support")
    assert support.get(correction_url(2)).status_code == 403
    assert support.post(correction_url(2), {"message": "2", "text": "x"}).status_code == 403
    assert "correct-link" not in page(support)
    assert "correct-link" in page(login("reviewer"))


def test_with_htmx_a_saved_correction_replaces_the_messages_region(login, notes_hermes):
    answer = login("reviewer").post(
        correction_url(2), {"message": "2", "text": "The answer is 42."}, **HX
    )
    body = answer.content.decode()
    assert answer.status_code == 200 and "<html" not in body
    assert answer["HX-Retarget"] == "#msg-review-2" and answer["HX-Reswap"] == "outerHTML"
    assert 'id="msg-review-2"' in body and "<ins>42</ins>" in body


def test_a_bad_correction_form_answers_400_in_place(login, notes_hermes):
    answer = login("reviewer").post(correction_url(2), {"message": "2", "text": ""}, **HX)
    body = answer.content.decode()
    assert answer.status_code == 400 and "<html" not in body and "field-error" in body


# -- mentions ----------------------------------------------------------------------------


def test_a_mention_lists_the_note_for_the_mentioned_user_only(login, notes_hermes):
    login("support").post(notes_url(2), {"body": "@reviewer please look", "message": "2"})
    reviewer, admin = login("reviewer"), login("admin")
    listed = reviewer.get(reverse("mentions")).content.decode()
    assert "@reviewer please look" in listed
    assert session_url("local", SID, upto=2) + "#msg-2" in listed.replace("&amp;", "&")
    assert 'class="mention unread"' in listed
    assert "please look" not in admin.get(reverse("mentions")).content.decode()
    assert re.search(r'id="mentions-unread"[^>]*>1<', listed)
    assert 'id="mentions-unread"' not in admin.get(reverse("mentions")).content.decode()


def test_mark_read_one_and_all(login, notes_hermes):
    support = login("support")
    for n in range(3):
        support.post(notes_url(), {"body": f"@reviewer number {n}"})
    reviewer = login("reviewer")
    first = Mention.objects.order_by("id").first()
    assert reviewer.post(reverse("mentions_read"), {"mention": first.pk}).status_code == 302
    assert Mention.objects.filter(read_at__isnull=True).count() == 2
    listed = reviewer.get(reverse("mentions")).content.decode()
    assert listed.count('class="mention unread"') == 2
    reviewer.post(reverse("mentions_read"), {"all": "1"})
    assert not Mention.objects.filter(read_at__isnull=True).exists()
    events = AuditEvent.objects.filter(capability="review.mention_read").order_by("id")
    assert [e.evidence for e in events] == [{"count": 1}, {"count": 2}]


def test_nobody_marks_someone_elses_mention_read(login, notes_hermes):
    login("support").post(notes_url(), {"body": "@reviewer hi"})
    mention = Mention.objects.get()
    login("admin").post(reverse("mentions_read"), {"mention": mention.pk})
    mention.refresh_from_db()
    assert mention.read_at is None


def test_mark_read_without_saying_which_is_a_400(login, notes_hermes):
    assert login("reviewer").post(reverse("mentions_read"), {}).status_code == 400


# -- hostile text ------------------------------------------------------------------------


def test_hostile_notes_corrections_and_mentions_stay_text(login, notes_hermes):
    login("support").post(notes_url(), {"body": HOSTILE_TEXT + " @reviewer"})
    login("support").post(notes_url(2), {"body": HOSTILE_TEXT, "message": "2"})
    reviewer = login("reviewer")
    reviewer.post(correction_url(2), {"message": "2", "text": HOSTILE_TEXT})
    assert_escaped(page(reviewer))
    assert_escaped(reviewer.get(reverse("mentions")).content.decode())
    assert_escaped(reviewer.get(notes_url(2)).content.decode())
    assert_escaped(reviewer.get(notes_url(2), **HX).content.decode())


# -- cost on the session page ------------------------------------------------------------


def test_the_session_page_asks_the_database_the_same_for_2_or_80_messages(login, notes_hermes):
    notes_hermes.add("long-notes", message_count=80)
    reviewer = login("reviewer")
    for sid, mid in ((SID, 2), ("long-notes", 2), ("long-notes", 60)):
        reviewer.post(notes_url(mid, sid), {"body": "n", "message": str(mid)})
        reviewer.post(correction_url(mid, sid), {"message": str(mid), "text": "c"})
    queries = {}
    for sid in (SID, "long-notes"):
        page(reviewer, sid)  # warm caches (sessions, roles) out of the count
        with CaptureQueriesContext(connection) as captured:
            shown = page(reviewer, sid)
        queries[sid] = len(captured)
        assert shown.count('class="msg-review"') == (2 if sid == SID else 80)
    assert queries[SID] == queries["long-notes"], queries


def test_htmx_posts_need_the_csrf_header_the_page_sets(users, notes_hermes):
    from django.test import Client

    client = Client(enforce_csrf_checks=True)
    client.force_login(users["support"])
    shown = page(client)
    token = re.search(r"hx-headers='\{\"X-CSRFToken\": \"([^\"]+)\"\}'", shown).group(1)
    refused = client.post(notes_url(), {"body": "no token"}, **HX)
    assert refused.status_code == 403
    answer = client.post(notes_url(), {"body": "with token"}, HTTP_X_CSRFTOKEN=token, **HX)
    assert answer.status_code == 200
    assert [n.body for n in Note.objects.all()] == ["with token"]


def test_with_htmx_deleting_a_note_swaps_its_thread(login, notes_hermes):
    support = login("support")
    support.post(notes_url(2), {"body": "to delete", "message": "2"})
    note = Note.objects.get()
    answer = support.post(reverse("review_note_delete", args=["local", note.pk]), **HX)
    body = answer.content.decode()
    assert answer.status_code == 200 and "<html" not in body
    assert 'id="notes-msg-2"' in body and "to delete" not in body
    assert re.search(r'id="msg-note-count-2" hx-swap-oob="true">0<', body)


def test_later_chunks_of_the_transcript_show_their_messages_marks(login, notes_hermes, settings):
    settings.HERMES_MESSAGES_PAGE_SIZE = 10
    notes_hermes.add("chunked", message_count=30)
    reviewer = login("reviewer")
    reviewer.post(notes_url(24, "chunked"), {"body": "late note", "message": "24"})
    reviewer.post(correction_url(24, "chunked"), {"message": "24", "text": "fixed text"})
    first = page(reviewer, "chunked")
    assert 'id="msg-note-count-24"' not in first
    chunk = reviewer.get(
        session_url("local", "chunked", "session_messages", after=20), **HX
    ).content.decode()
    assert re.search(r'id="msg-note-count-24">1<', chunk)
    assert "<ins>fixed text</ins>" in chunk
    focused = reviewer.get(session_url("local", "chunked", upto=24)).content.decode()
    assert re.search(r'id="msg-note-count-24">1<', focused)
