"""Feature filters and badges of the index's tables: parsed, applied, negated, shown."""

import pytest
from django.db.models import Q

from hermes_ui.index import sync
from hermes_ui.search import badges, facets, queries
from hermes_ui.search import syntax as query_syntax
from hermes_ui.search.selection import resolve
from tests.index.test_sync import seed_lineage

pytestmark = pytest.mark.django_db


def _pick(value: str) -> set[str]:
    if not value or value == "bad":
        raise ValueError("takes a comma-separated list of ids")
    return set(value.split(","))


@pytest.fixture
def picked(monkeypatch):
    """A test facet ``pick:a,b`` (negatable) and a badge reader that knows who asks."""
    pick = facets.Facet("pick", _pick, lambda ep, ids, user: Q(session_id__in=ids), negatable=True)
    monkeypatch.setitem(facets.loaded(), "pick", pick)
    seen_users = []

    def read(ep, ids, user, rows=None):
        seen_users.append(user)
        return {
            i: [badges.Badge(f"<b>{i}</b>", colour="red", kind="test")] for i in ids if i == "br"
        }

    monkeypatch.setitem(badges.readers(), "test", read)
    return seen_users


def test_a_registered_facet_parses_negates_and_reports_mistakes(picked):
    query = query_syntax.parse("refund pick:a,b -pick:c -source:x")
    assert [(t.key, t.value, t.negated) for t in query.facets] == [
        ("pick", {"a", "b"}, False),
        ("pick", {"c"}, True),
    ]
    # ``-source:`` is no facet (and source is not negatable): it stays text.
    assert [t.text for t in query.terms] == ["refund", "-source:x"]
    assert query_syntax.parse("pick:bad").errors == ["pick: takes a comma-separated list of ids"]
    assert query_syntax.parse("-kind:branch").facets == []  # built-in filters do not negate


def test_facets_narrow_the_table_and_select_all(picked, empty_hermes, mock_endpoint, login):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    terms = query_syntax.parse("pick:root,par,br -pick:par").facets
    page = queries.search(mock_endpoint, snapshot=0, facets=terms)
    assert {r["id"] for r in page.rows} == {"root", "br"} and page.total == 2
    chosen = resolve(mock_endpoint, {"all": "1", "q": "pick:root,par,br -pick:par"})
    assert sorted(chosen.ids) == ["br", "root"]
    client = login("support")
    html = client.get("/e/local/sessions/", {"q": "pick:br,cont"}).content.decode()
    assert "2 matching sessions" in html
    # The badge reader's text is escaped in the table and was asked for this user.
    assert "&lt;b&gt;br&lt;/b&gt;" in html and "<b>br</b>" not in html
    assert picked and picked[-1].username == "support"
    bad = client.get("/e/local/sessions/", {"q": "pick:bad"})
    assert bad.status_code == 400 and "pick: takes a comma-separated list" in bad.content.decode()
