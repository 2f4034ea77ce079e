"""New since I looked, with a fake Hermes: the session page moves the watermark; the
index marks and filters what grew since."""

import pytest

from hermes_ui.deletion import erasure
from hermes_ui.index import sync
from hermes_ui.search import content_search, queries, syntax
from hermes_ui.watermarks import looked
from hermes_ui.watermarks.models import Watermark
from hermes_ui.web.links import session_url
from tests.index.test_sync import seed_lineage

pytestmark = pytest.mark.django_db


@pytest.fixture
def marks_indexed(empty_hermes, mock_endpoint):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    return mock_endpoint


def _new(client, q="new:yes"):
    return client.get("/e/local/sessions/", {"q": q}).content.decode()


def test_opening_a_session_page_moves_the_watermark(marks_indexed, login, users):
    client = login("support")
    assert client.get(session_url("local", "par")).status_code == 200
    mark = Watermark.objects.get()
    assert (mark.user, mark.session_id, mark.message_count) == (users["support"], "par", 2)
    first_seen = mark.seen_at
    client.get(session_url("local", "par"))
    mark.refresh_from_db()
    assert Watermark.objects.count() == 1 and mark.seen_at > first_seen  # an upsert


def test_new_messages_since_a_look_are_marked_and_filtered_per_user(
    marks_indexed, empty_hermes, login
):
    support, reviewer = login("support"), login("reviewer")
    support.get(session_url("local", "par"))
    support.get(session_url("local", "br"))
    reviewer.get(session_url("local", "par"))
    assert "0 matching sessions" in _new(support)
    empty_hermes.chat("par")  # two more messages
    sync.sync(marks_indexed, full=True)
    html = _new(support)
    assert "1 matching session." in html and '"Select par"' in html
    assert 'badge-kind-new" title="2 messages since you last opened it">new 2<' in html
    # new:no is everything else, never-opened sessions included.
    assert "4 matching sessions" in _new(support, "new:no")
    # The reviewer looked too and is told as well; the admin never opened it: not new.
    assert "new 2" in _new(reviewer)
    assert "0 matching sessions" in _new(login("admin"))
    # Opening it again clears it for that user only.
    support.get(session_url("local", "par"))
    assert "0 matching sessions" in _new(support)
    assert "1 matching session." in _new(reviewer)
    assert _new(support, "new:maybe").count("new: takes yes or no") == 1


def test_new_applies_to_select_all_and_content_filters(marks_indexed, empty_hermes, users):
    looked.look(users["support"], marks_indexed, "br", 2)
    empty_hermes.chat("br")
    sync.sync(marks_indexed, full=True)
    terms = syntax.parse("new:yes").facets
    page = queries.search(marks_indexed, snapshot=0, facets=terms, user=users["support"])
    assert [row["id"] for row in page.rows] == ["br"]
    nobody = queries.search(marks_indexed, snapshot=0, facets=terms, user=users["reviewer"])
    assert nobody.rows == []
    # Transcript hits: every session's messages say "hello"; only br's are new.
    found = content_search.search(
        marks_indexed,
        syntax.parse("hello new:yes"),
        after=None,
        limit=20,
        user=users["support"],
    )
    assert [result.session_id for result in found.results] == ["br"]
    everyone = content_search.search(marks_indexed, syntax.parse("hello"), after=None, limit=20)
    assert len(everyone.results) > 1


def test_a_failing_watermark_never_breaks_the_session_page(
    marks_indexed, login, monkeypatch, caplog
):
    def broken(*args, **kwargs):
        raise RuntimeError("database is locked")

    monkeypatch.setattr(looked, "look", broken)
    answer = login("support").get(session_url("local", "par"))
    assert answer.status_code == 200 and "Parent" in answer.content.decode()
    assert not Watermark.objects.exists()
    assert "watermark not moved endpoint=local" in caplog.text and "RuntimeError" in caplog.text


def test_erasure_removes_every_users_watermarks_of_a_deleted_session(marks_indexed, users):
    for name in ("support", "reviewer"):
        looked.look(users[name], marks_indexed, "par", 2)
    looked.look(users["support"], marks_indexed, "br", 2)
    assert erasure.local_copies(marks_indexed, ["par"])["watermarks"] == 2
    assert erasure.erase(marks_indexed, ["par"])["watermarks"] == 2
    assert list(Watermark.objects.values_list("session_id", flat=True)) == ["br"]


def test_the_new_badge_reads_counts_from_the_page_rows_or_the_index(
    marks_indexed, empty_hermes, users
):
    from hermes_ui.watermarks import marks

    reader = users["support"]
    looked.look(reader, marks_indexed, "par", 2)
    empty_hermes.chat("par")  # two more messages
    sync.sync(marks_indexed, full=True)
    rows = {r["id"]: r for r in queries.search(marks_indexed, snapshot=0).rows}
    ids = list(rows)
    from_rows = marks.badges(marks_indexed, ids, reader, rows=rows)
    assert [b.text for b in from_rows["par"]] == ["new 2"] and set(from_rows) == {"par"}
    assert marks.badges(marks_indexed, ids, reader) == from_rows  # read from the index instead
    # The page's rows are what it shows: a count there is the one compared.
    rows["par"] = {**rows["par"], "message_count": 3}
    assert [b.text for b in marks.badges(marks_indexed, ids, reader, rows=rows)["par"]] == ["new 1"]
