"""Notes, mentions and corrections against the real peer (hermes-agent 0.19.0, demo seed).

Nothing here changes Hermes: the shared peer (``peer_endpoint``) is enough.
"""

import re

import pytest
from django.urls import reverse

from devtools.peer import demo_ids as ids
from hermes_ui.hermes.client import HermesClient
from hermes_ui.review.models import Correction, Mention, Note
from hermes_ui.web.links import session_url
from tests.review.notes_corpus import HOSTILE_TEXT, assert_escaped

pytestmark = [pytest.mark.peer, pytest.mark.django_db]
HX = {"HTTP_HX_REQUEST": "true"}


def rows_of(endpoint, session_id: str) -> dict:
    client = HermesClient(endpoint)
    try:
        return client.get_messages(session_id)
    finally:
        client.close()


def first(rows: dict, role: str) -> dict:
    return next(row for row in rows["data"] if row["role"] == role)


def test_a_correction_of_a_seeded_assistant_message_shows_as_a_diff(login, peer_endpoint):
    answer_row = first(rows_of(peer_endpoint, ids.ODD_ID), "assistant")
    assert answer_row["content"] == "Only percent-encoded."
    mid = answer_row["id"]
    reviewer = login("reviewer")
    url = session_url("local", ids.ODD_ID, "review_correction", message=mid)
    assert "Only percent-encoded.</textarea>" in reviewer.get(url).content.decode()
    saved = reviewer.post(url, {"message": str(mid), "text": "Always percent-encoded, yes."})
    assert saved.status_code == 302
    assert saved["Location"] == session_url("local", ids.ODD_ID, upto=mid) + f"#msg-{mid}"
    page = reviewer.get(saved["Location"]).content.decode()
    region = page[page.index(f'id="msg-review-{mid}"') :]
    assert "<del>Only</del><span> percent-encoded.</span>" in region
    assert "<ins>Always</ins><span> percent-encoded</span><ins>, yes</ins>" in region
    user_row = first(rows_of(peer_endpoint, ids.ODD_ID), "user")
    refused = reviewer.post(url, {"message": str(user_row["id"]), "text": "x"})
    assert refused.status_code == 400
    assert Correction.objects.get().message_id == mid


def test_notes_on_a_message_appear_in_that_messages_thread(login, peer_endpoint):
    rows = rows_of(peer_endpoint, ids.TOOL_SESSION)
    mid = first(rows, "assistant")["id"]
    other = first(rows, "user")["id"]
    support = login("support")
    url = session_url("local", ids.TOOL_SESSION, "review_notes", message=mid)
    assert support.post(url, {"body": "peer note on the answer", "message": str(mid)}).status_code
    thread = support.get(url).content.decode()
    assert "peer note on the answer" in thread
    fragment = support.get(url, **HX).content.decode()
    assert "<html" not in fragment and "peer note on the answer" in fragment
    elsewhere = session_url("local", ids.TOOL_SESSION, "review_notes", message=other)
    assert "peer note on the answer" not in support.get(elsewhere).content.decode()
    page = support.get(session_url("local", ids.TOOL_SESSION)).content.decode()
    assert re.search(rf'id="msg-note-count-{mid}">1<', page)


def test_a_note_from_a_compression_root_is_kept_on_the_tip_that_holds_the_message(
    login, peer_endpoint
):
    rows = rows_of(peer_endpoint, ids.COMPRESSION_ROOT)
    assert rows["session_id"] == ids.COMPRESSION_TIP
    mid = rows["data"][-1]["id"]
    support = login("support")
    url = session_url("local", ids.COMPRESSION_ROOT, "review_notes", message=mid)
    answer = support.post(url, {"body": "on the tip", "message": str(mid)})
    assert answer["Location"].startswith(session_url("local", ids.COMPRESSION_TIP))
    assert Note.objects.get().session_id == ids.COMPRESSION_TIP
    for sid in (ids.COMPRESSION_ROOT, ids.COMPRESSION_TIP):
        page = support.get(session_url("local", sid, upto=mid)).content.decode()
        assert re.search(rf'id="msg-note-count-{mid}">1<', page), sid


def test_mentions_are_listed_for_the_mentioned_user_only(login, peer_endpoint):
    support = login("support")
    url = session_url("local", ids.BRANCH_A, "review_notes")
    support.post(url, {"body": "@reviewer can you check the plan? (not admin2)"})
    note = Note.objects.get()
    assert [m.user.username for m in Mention.objects.all()] == ["reviewer"]
    listed = login("reviewer").get(reverse("mentions")).content.decode()
    assert "can you check the plan?" in listed
    assert session_url("local", ids.BRANCH_A) + "#notes" in listed
    for name in ("support", "admin", "admin2"):
        theirs = login(name).get(reverse("mentions")).content.decode()
        assert "can you check the plan?" not in theirs, name
    assert note.body.startswith("@reviewer")


def test_hostile_notes_and_corrections_are_escaped_on_the_real_pages(login, peer_endpoint):
    rows = rows_of(peer_endpoint, ids.XSS_TITLE_SESSION)
    mid = first(rows, "assistant")["id"]
    support, reviewer = login("support"), login("reviewer")
    notes = session_url("local", ids.XSS_TITLE_SESSION, "review_notes")
    support.post(notes, {"body": HOSTILE_TEXT + " @reviewer"})
    support.post(notes + f"?message={mid}", {"body": HOSTILE_TEXT, "message": str(mid)})
    fix = session_url("local", ids.XSS_TITLE_SESSION, "review_correction", message=mid)
    assert reviewer.post(fix, {"message": str(mid), "text": HOSTILE_TEXT}).status_code == 302
    page = reviewer.get(session_url("local", ids.XSS_TITLE_SESSION)).content.decode()
    assert_escaped(page)
    # The seeded answer's own <script> is diffed as text too.
    region = page[page.index(f'id="msg-review-{mid}"') :]
    assert "<del>" in region and "<ins>" in region
    assert "<script>alert('answer')" not in page
    assert_escaped(reviewer.get(reverse("mentions")).content.decode())
    assert_escaped(reviewer.get(notes + f"?message={mid}").content.decode())
