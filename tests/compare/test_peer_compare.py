"""Compare on the real peer: siblings, a compression tip, hostile text, the fork quirk, verdicts."""

import html
import re

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.models import AuditEvent
from hermes_ui.compare.align import common_prefix
from hermes_ui.compare.models import Verdict
from hermes_ui.index.models import KnownFork
from hermes_ui.web.links import compare_url, session_url
from tests.changes.conftest import form_key, make_session, unique
from tests.support.peers import index

pytestmark = [pytest.mark.peer, pytest.mark.django_db]


def page_of(client, a, b):
    answer = client.get(compare_url("local", a, b))
    assert answer.status_code == 200, answer.content.decode()[:800]
    return answer.content.decode()


def fork_here(reviewer, parent_id: str, child_id: str):
    """Fork through the dashboard's own form, as a reviewer would."""
    url = session_url("local", parent_id, "session_fork")
    key = form_key(reviewer.get(url).content.decode())
    answer = reviewer.post(url, {"key": key, "child_id": child_id, "title": ""})
    assert answer.status_code == 302
    return answer


def compare_panel_of(client, session_id: str) -> str:
    """The session page's compare region, fetched the way htmx does once it is in view."""
    page = client.get(session_url("local", session_id)).content.decode()
    lazy = re.search(r'id="compare-panel"[^>]*hx-get="([^"]+)" hx-trigger="revealed"', page)
    assert lazy, "the session page has no lazy compare region"
    panel_url = html.unescape(lazy.group(1))
    assert f'href="{lazy.group(1)}"' in page  # the same panel as a plain link, without JS
    answer = client.get(panel_url, HTTP_HX_REQUEST="true")
    assert answer.status_code == 200
    return answer.content.decode()


def shared_count(page: str) -> int | None:
    found = re.search(r"<strong>([\d,]+)</strong> shared message", page)
    return int(found.group(1).replace(",", "")) if found else None


def test_two_sibling_branches_side_by_side(login, review_client):
    page = page_of(login("support"), ids.BRANCH_A, ids.BRANCH_B)
    a, b = (
        review_client.get_messages(ids.BRANCH_A)["data"],
        review_client.get_messages(ids.BRANCH_B)["data"],
    )
    expected = common_prefix(a, b)
    assert expected > 0  # the seed's branches copy their parent's opening
    assert shared_count(page) == expected
    assert html.escape(ids.BRANCH_A_TITLE) in page and html.escape(ids.BRANCH_B_TITLE) in page
    assert f"{len(a) - expected} message" in page and f"{len(b) - expected} only in B" in page
    assert 'class="cmp-row" role="row"' in page
    assert "<ins>" in page or "<del>" in page or "no message here" in page
    # The figures table has both sides' row values.
    row_a = review_client.get_session(ids.BRANCH_A)
    assert f"<td>{row_a.message_count:,}</td>" in page
    assert 'id="verdict-form"' not in page  # support cannot judge


def test_a_compression_tip_against_a_branch(login, review_client):
    page = page_of(login("reviewer"), ids.COMPRESSION_TIP, ids.BRANCH_A)
    tip = review_client.get_messages(ids.COMPRESSION_TIP)["data"]
    branch = review_client.get_messages(ids.BRANCH_A)["data"]
    assert common_prefix(tip, branch) == 0
    assert "The two transcripts share no messages" in page
    assert html.escape(ids.COMPRESSION_TIP_TITLE) in page
    assert 'id="cannot-compare"' not in page
    assert 'id="verdict-form"' in page


def test_a_compression_root_reads_as_its_chain(login, review_client, review_endpoint):
    index(review_endpoint, transcripts=False)  # the lineage, not the transcripts
    page = page_of(login("support"), ids.COMPRESSION_ROOT, ids.BRANCH_A)
    assert "Continued after context compression" in page
    assert html.escape(ids.COMPRESSION_TIP) in page
    assert 'id="cannot-compare"' not in page


def test_hostile_content_stays_escaped(login, review_client):
    page = page_of(login("support"), ids.XSS_TITLE_SESSION, ids.BRANCH_A)
    assert "<script>alert(1)</script>" not in page
    assert not re.search(r"<img[^>]*onerror", page, re.IGNORECASE)
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_an_api_forked_parent_is_compared_from_the_fork_record(login, review_client):
    parent = make_session(review_client, title=unique("Quirk parent"), chat="first question")
    reviewer = login("reviewer")
    child_id = unique("kid")
    fork_here(reviewer, parent["id"], child_id)
    review_client.chat(child_id, message="a different follow-up")
    # Hermes now answers the parent's /messages with the child's rows.
    assert review_client.get_messages(parent["id"])["session_id"] == child_id
    page = page_of(reviewer, parent["id"], child_id)
    assert "were recorded when the dashboard forked it" in page
    assert shared_count(page) == 2  # the parent's own two messages
    assert "2 only in B" in page and 'id="cannot-compare"' not in page

    # A fork the dashboard did not make leaves nothing to compare the parent by.
    other = make_session(review_client, title=unique("Quirk other"), chat="hello there")
    review_client.fork_session(other["id"], idempotency_key=unique("k"), child_id=unique("ext"))
    outside = review_client.get_messages(other["id"])["session_id"]
    page = page_of(reviewer, other["id"], outside)
    assert 'id="cannot-compare"' in page
    assert "holds no record of its own messages" in page
    assert html.escape(outside) in page


def test_a_verdict_is_stored_audited_shown_and_leaves_the_review_list(login, review_client):
    parent = make_session(review_client, title=unique("Review parent"), chat="start")
    reviewer = login("reviewer")
    kids = []
    for _ in range(2):
        kid = unique("alt")
        fork_here(reviewer, parent["id"], kid)
        kids.append(kid)
    assert KnownFork.objects.filter(parent_id=parent["id"]).count() == 2
    todo = reviewer.get("/e/local/compare/to-review/").content.decode()
    assert all(html.escape(k)[:30] in todo for k in kids)

    secret_reason = "B keeps the budget; call me at jo@example.com"
    answer = reviewer.post(
        "/e/local/compare/verdict/",
        {"a": kids[0], "b": kids[1], "choice": "b", "reason": secret_reason},
    )
    assert answer.status_code == 302
    verdict = Verdict.objects.get()
    assert verdict.preferred_id == kids[1] and verdict.reason == secret_reason
    event = AuditEvent.objects.get(capability="compare_verdict")
    assert event.evidence["preferred_session_id"] == kids[1]
    assert event.evidence["reason"]["length"] == len(secret_reason)
    assert "jo@example.com" not in str(event.evidence)

    page = reviewer.get(answer["Location"]).content.decode()
    assert 'id="verdict-now"' in page and html.escape(secret_reason) in page
    # Both sessions' pages show it; the preferred one is marked.
    preferred = compare_panel_of(reviewer, kids[1])
    assert "★ Preferred over" in preferred
    loser = compare_panel_of(reviewer, kids[0])
    assert "Not preferred, against" in loser
    # The lineage graph marks the preferred node.
    graph = reviewer.get(session_url("local", kids[0], "lineage_page")).content.decode()
    assert "preferred by review" in graph
    assert 'id="pick-compare"' in graph
    todo = reviewer.get("/e/local/compare/to-review/").content.decode()
    assert html.escape(kids[0])[:30] not in todo and html.escape(kids[1])[:30] not in todo
    # Support cannot record one.
    refused = login("support").post(
        "/e/local/compare/verdict/", {"a": kids[0], "b": kids[1], "choice": "a", "reason": "x"}
    )
    assert refused.status_code == 403 and Verdict.objects.count() == 1


def test_the_fork_outcome_and_the_session_page_link_to_compare(
    login, review_client, review_endpoint
):
    index(review_endpoint, transcripts=False)  # the lineage, not the transcripts
    parent = make_session(review_client, title=unique("Entry parent"), chat="hi")
    reviewer = login("reviewer")
    kid = unique("entry")
    answer = fork_here(reviewer, parent["id"], kid)
    outcome = reviewer.get(answer["Location"]).content.decode()
    assert html.escape(compare_url("local", parent["id"], kid)) in outcome
    sibling_panel = compare_panel_of(reviewer, ids.BRANCH_A)
    assert html.escape(compare_url("local", ids.BRANCH_A, ids.BRANCH_B)) in sibling_panel
