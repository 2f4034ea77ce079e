"""An unknown ``name:value`` is never silent: a typo of a filter is a 400 that suggests it,
anything else is searched as words with a note, quoting searches the words without one.
The same in the index search, review rules, the dataset export and saved views."""

import pytest
from django.db.models import Q
from django.urls import reverse

from hermes_ui.index import sync
from hermes_ui.saved_views.models import SavedView
from hermes_ui.search import facets
from hermes_ui.search import syntax as query_syntax
from tests.review.filters_rules_export.conftest import queue_maker, version  # noqa: F401

pytestmark = pytest.mark.django_db


def test_a_typo_of_a_filter_is_an_error_that_suggests_it():
    for typed, known in [("labl:resolved=yes", "label"), ("sorce:cli", "source"), ("tga:x", "tag")]:
        q = query_syntax.parse(typed)
        assert [t.suggestion for t in q.typos] == [known], typed
        assert q.errors == [
            f"\u201c{typed.split(':')[0]}:\u201d is not a filter; did you mean "
            f"\u201c{known}:\u201d?"
        ]
        assert q.terms == [] and q.notes == []
    assert query_syntax.parse("-labl:x").typos[0].suggestion == "label"  # negated too


def test_any_other_name_is_searched_as_words_with_a_note():
    for typed, name in [
        ("foo:bar", "foo"),
        ("http://example.com/x", "http"),
        ("error:timeout", "error"),
        ("re:meeting", "re"),
    ]:
        q = query_syntax.parse(typed)
        assert q.errors == [] and q.terms == [query_syntax.Term(typed)], typed
        (note,) = q.notes
        assert (note.name, note.searched) == (name, typed)
        assert note.message == f"`{name}` is not a filter; searched `{typed}` as words"


def test_quoting_or_a_number_before_the_colon_searches_the_words_without_a_note():
    quoted = query_syntax.parse('"foo:bar"')
    assert quoted.terms == [query_syntax.Term("foo:bar", phrase=True)] and quoted.notes == []
    clock = query_syntax.parse("10:30")
    assert clock.terms == [query_syntax.Term("10:30")] and clock.notes == []


@pytest.fixture
def archived(monkeypatch):
    """Another feature's ``archived:`` filter in the table; the real one
    (``index.archived``) is put back afterwards, for the tests that run later."""
    other = facets.Facet("archived", lambda v: v == "yes", lambda ep, v, u: Q())
    monkeypatch.setitem(facets.loaded(), "archived", other)


def test_known_names_come_from_the_facets_table(archived):
    assert "archived" in query_syntax.known_names()
    assert query_syntax.parse("archived:yes").notes == []
    assert [f.key for f in query_syntax.parse("archived:yes").facets] == ["archived"]
    assert query_syntax.parse("archivd:yes").typos[0].suggestion == "archived"


@pytest.fixture
def without_archived(monkeypatch):
    """The index as it would be without the ``archived:`` filter, restored afterwards."""
    monkeypatch.delitem(facets.loaded(), "archived")


def test_without_it_archived_is_a_note_not_silence(without_archived):
    assert "archived" not in query_syntax.known_names()
    assert [n.name for n in query_syntax.parse("archived:yes").notes] == ["archived"]


@pytest.fixture
def indexed(empty_hermes, mock_endpoint):
    empty_hermes.add("hit", at=100.0, title="Deploy foo:bar report")
    empty_hermes.add("other", at=200.0, title="Unrelated")
    sync.sync(mock_endpoint, full=True)
    return mock_endpoint


def test_the_index_page(indexed, login):
    client = login("support")
    typo = client.get("/e/local/sessions/", {"q": "labl:resolved=yes"})
    html = typo.content.decode()
    assert typo.status_code == 400
    assert "is not a filter; did you mean \u201clabel:\u201d?" in html
    assert 'id="search-syntax"' in html and 'name="q"' in html  # the page, not an error page
    assert client.get("/e/local/sessions/", {"q": "sorce:cli"}).status_code == 400

    words = client.get("/e/local/sessions/", {"q": "foo:bar", "table": "on"})
    html = words.content.decode()
    assert words.status_code == 200 and 'id="search-notes"' in html
    assert "<code>foo</code> is not a filter; searched <code>foo:bar</code> as words" in html
    assert "#search-syntax" in html.split('id="search-notes"')[1]
    assert "/sessions/hit/" in html and "/sessions/other/" not in html

    quoted = client.get("/e/local/sessions/", {"q": '"foo:bar"', "table": "on"})
    html = quoted.content.decode()
    assert quoted.status_code == 200 and 'id="search-notes"' not in html
    assert "/sessions/hit/" in html


def test_review_rules(indexed, users, login, queue_maker):  # noqa: F811
    queue = queue_maker(indexed, owner=users["reviewer"])
    client = login("reviewer")
    url = reverse("review_rules", kwargs={"endpoint": "local", "queue": queue.pk})
    bad = client.post(url, {"query": "sorce:cli", "percent": "20"})
    assert bad.status_code == 400 and "did you mean \u201csource:\u201d?" in bad.content.decode()
    assert client.post(url, {"query": "foo:bar", "percent": "20"}).status_code == 302
    page = client.get(url).content.decode()
    assert "<code>foo</code> is not a filter; searched <code>foo:bar</code> as words" in page


def test_the_dataset_export_of_a_search(indexed, login):
    client = login("reviewer")
    url = reverse("review_dataset_search", kwargs={"endpoint": "local"})
    bad = client.get(url, {"q": "labl:x", "format": "jsonl"})
    assert bad.status_code == 400 and "did you mean \u201clabel:\u201d?" in bad.content.decode()
    # Words with a note: the page says so first instead of a silent download...
    noted = client.get(url, {"q": "foo:bar", "format": "jsonl"})
    html = noted.content.decode()
    assert noted["Content-Type"].startswith("text/html") and 'id="search-notes"' in html
    assert 'name="words" value="on"' in html
    # ...and the next submission (which carries the acknowledgement) downloads.
    done = client.get(url, {"q": "foo:bar", "format": "jsonl", "words": "on"})
    assert done.status_code == 200 and not done["Content-Type"].startswith("text/html")
    quoted = client.get(url, {"q": '"foo:bar"', "format": "jsonl"})
    assert not quoted["Content-Type"].startswith("text/html")


def test_saved_views(indexed, login):
    client = login("support")
    bad = client.post("/e/local/views/save/", {"name": "v", "q": "sorce:cli"})
    assert bad.status_code == 400 and "did you mean \u201csource:\u201d?" in bad.content.decode()
    assert not SavedView.objects.exists()
    assert client.post("/e/local/views/save/", {"name": "w", "q": "foo:bar"}).status_code == 302
    view = SavedView.objects.get()
    assert view.q == "foo:bar"
    # Applying the view is the index search with its query: the note is there.
    shown = client.get("/e/local/sessions/", {"q": view.q, "view": str(view.pk)})
    assert 'id="search-notes"' in shown.content.decode()


def test_a_negated_filter_that_cannot_be_negated_is_words_with_a_note():
    q = query_syntax.parse("-source:cli")
    assert q.errors == [] and q.source == "" and [t.text for t in q.terms] == ["-source:cli"]
    assert [n.message for n in q.notes] == [
        "`-source` is not a filter; searched `-source:cli` as words"
    ]
