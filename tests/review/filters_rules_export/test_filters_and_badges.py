"""The review filters of the index search and the review badges, over a fake Hermes.

Sessions (``seed_lineage``): root, cont (its continuation), dele, par, br.
"""

import re

import pytest

from hermes_ui.index import sync
from hermes_ui.review import badges
from hermes_ui.review.models import Item
from hermes_ui.search import queries
from hermes_ui.search import syntax as query_syntax
from hermes_ui.search.selection import resolve
from hermes_ui.web.links import session_url
from tests.index.test_sync import seed_lineage
from tests.review.filters_rules_export.made import item, review

pytestmark = pytest.mark.django_db

HOSTILE = "<img src=x onerror=alert(1)>"


@pytest.fixture
def reviewed_world(empty_hermes, mock_endpoint, users, version, queue_maker):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    triage = queue_maker(mock_endpoint, "Triage")
    pairs = queue_maker(mock_endpoint, "pairs", reviews_needed=2)
    reviewer, admin = users["reviewer"], users["admin"]
    root = item(triage, "root", state=Item.COMPLETED)
    review(root, reviewer, version, {"resolved": "yes", "policy": "privacy", "quality": "4"})
    par = item(triage, "par")
    review(par, reviewer, version, {"resolved": "yes"}, done=False)  # a draft: never counts
    br = item(triage, "br", state=Item.COMPLETED)
    review(br, reviewer, version, {"resolved": "no", "policy": HOSTILE})
    review(br, admin, version, {"resolved": "yes", "policy": HOSTILE}, authoritative=True)
    cont = item(triage, "cont", message_id=2, state=Item.COMPLETED)
    review(cont, reviewer, version, messages={2: {"accuracy": "wrong"}})
    dele = item(pairs, "dele", state=Item.NEEDS_OTHERS)
    review(dele, reviewer, version, {"resolved": "no"})
    return mock_endpoint


def found(ep, q: str) -> set[str]:
    query = query_syntax.parse(q)
    assert not query.errors, query.errors
    return {row["id"] for row in queries.search(ep, snapshot=0, facets=query.facets).rows}


def test_label_matches_completed_reviews_on_the_session_or_its_messages(reviewed_world):
    ep = reviewed_world
    # par's only "resolved=yes" is a draft; br's authoritative "yes" beats the other "no".
    assert found(ep, "label:resolved=yes") == {"root", "br"}
    assert found(ep, "label:resolved=YES") == {"root", "br"}  # values ignore case
    # dele's "no" waits for a second review: hidden until its item completes.
    assert found(ep, "label:resolved=no") == set()
    assert found(ep, "label:accuracy=wrong") == {"cont"}  # a message's label
    assert found(ep, 'label:"policy=self harm"') == set()
    assert found(ep, "-label:resolved=yes") == {"cont", "dele", "par"}
    assert found(ep, "label:resolved=yes label:policy=privacy") == {"root"}


def test_reviewed_and_queue(reviewed_world):
    ep = reviewed_world
    assert found(ep, "reviewed:yes") == {"root", "br", "cont", "dele"}
    assert found(ep, "reviewed:no") == {"par"}
    assert found(ep, "queue:triage") == {"root", "par", "br", "cont"}  # names ignore case
    assert found(ep, "queue:pairs") == {"dele"}
    assert found(ep, "-queue:Triage") == {"dele"}
    assert found(ep, "queue:nothing-by-that-name") == set()


def test_the_index_page_and_select_all_apply_them_and_explain_bad_values(reviewed_world, login):
    client = login("support")
    html = client.get("/e/local/sessions/", {"q": "label:resolved=yes"}).content.decode()
    assert "2 matching sessions" in html
    assert sorted(resolve(reviewed_world, {"all": "1", "q": "reviewed:no"}).ids) == ["par"]
    for q, message in [
        ("label:resolved", "label: takes a field and a value, like label:resolved=yes"),
        ("label:=yes", "label: takes a field and a value"),
        ("label:<b>=x", "is no rubric field name"),
        ("reviewed:maybe", "reviewed: takes yes or no (not &#x27;maybe&#x27;)"),
        ('queue:""', "queue: takes the name of a review queue"),
    ]:
        bad = client.get("/e/local/sessions/", {"q": q})
        assert bad.status_code == 400, q
        assert message in bad.content.decode(), q


def test_badges_say_reviewed_or_how_far_and_the_consensus_of_choices(
    reviewed_world, users, django_assert_max_num_queries
):
    ids = ["root", "cont", "dele", "par", "br"]
    with django_assert_max_num_queries(2):
        marks = badges.read(reviewed_world, ids, users["support"])
    text = {sid: [b.text for b in marks.get(sid, [])] for sid in ids}
    # Numbers and free text make no badge; a draft makes none either.
    assert text["root"] == ["reviewed", "Resolved: yes", "Policy issue: privacy"]
    assert text["br"] == ["reviewed", "Resolved: yes", f"Policy issue: {HOSTILE}"]
    assert text["dele"] == ["reviewing 1/2"]  # its first review stays hidden until done
    assert text["par"] == ["reviewing 0/1"]
    assert text["cont"] == ["reviewed"]  # its label is a message's


def test_a_tie_shows_no_value(empty_hermes, mock_endpoint, users, version, queue_maker):
    seed_lineage(empty_hermes)
    sync.sync(mock_endpoint, full=True)
    two = item(queue_maker(mock_endpoint, reviews_needed=2), "par", state=Item.COMPLETED)
    review(two, users["reviewer"], version, {"resolved": "yes"})
    review(two, users["admin"], version, {"resolved": "no"})
    assert [b.text for b in badges.read(mock_endpoint, ["par"], None)["par"]] == ["reviewed"]
    review(
        item(queue_maker(mock_endpoint, "third"), "par", state=Item.COMPLETED),
        users["admin2"],
        version,
        {"resolved": "no"},
    )
    marks = badges.read(mock_endpoint, ["par"], None)["par"]
    assert [b.text for b in marks] == ["reviewed", "Resolved: no"]  # two of three


def test_badges_show_escaped_in_the_index_table(reviewed_world, login):
    html = login("support").get("/e/local/sessions/", {"q": "reviewed:yes"}).content.decode()
    row = re.search(r'<tr[^>]*>(?:(?!</tr>).)*?value="br".*?</tr>', html, re.S).group(0)
    assert "badge-kind-review" in row and ">reviewed<" in row
    assert "Policy issue: &lt;img src=x onerror=alert(1)&gt;" in row
    assert HOSTILE not in html


def test_badges_show_as_text_in_lineage_nodes(reviewed_world, login):
    html = login("support").get(session_url("local", "br", "lineage_page")).content.decode()
    assert "reviewed · Resolved: yes · Policy issue: &lt;img src=x" in html
    assert HOSTILE not in html
