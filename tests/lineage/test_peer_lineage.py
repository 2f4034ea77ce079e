"""Against the real Hermes API server and its demo seed: index, tip, graph pages."""

import httpx
import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.hermes.client import HermesClient, use_transport
from hermes_ui.index import sync
from hermes_ui.index.models import IndexedSession
from hermes_ui.lineage import render
from hermes_ui.lineage.graph.tip import compression_tip, resume_target
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.search.queries import lineage
from hermes_ui.web.links import session_url
from tests.lineage.helpers import box_with, edge_kinds, links, node_texts, svg_in
from tests.support.fakes import raising
from tests.support.peers import unreachable

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


@pytest.fixture
def synced(peer_endpoint, settings):
    """The shared peer's sessions, indexed by a full sync, without their transcripts
    (``HERMES_INDEX_CONTENT`` off): no test here searches them, and reading all of them
    was most of each sync (tests/search/ and test_an_api_fork_... read them)."""
    settings.HERMES_INDEX_CONTENT = False
    report = sync.sync(peer_endpoint, full=True)
    assert report.error_code == "" and report.counts.added >= 199
    return peer_endpoint


def kind(session_id):
    return IndexedSession.objects.get(endpoint="local", session_id=session_id).kind


def page(client, session_id, **query):
    answer = client.get(session_url("local", session_id, "lineage_page", **query))
    assert answer.status_code == 200, answer.content[:500]
    return answer.content.decode()


def test_an_api_fork_captures_its_parents_transcript_and_the_tip_says_so(peer_endpoint):
    # hermes-agent 0.19.0: API forks carry no _branched_from marker, so
    # resolve_resume_session_id walks from the parent into its newest fork.
    import uuid

    client = HermesClient(peer_endpoint)
    parent = f"fork-tip-{uuid.uuid4().hex[:8]}"
    client.create_session(idempotency_key=uuid.uuid4().hex, session_id=parent)
    client.chat(parent, message="hello before the fork")
    child = client.fork_session(parent, idempotency_key=uuid.uuid4().hex).id
    sync.sync(peer_endpoint, full=True)
    tree = Tree(lineage(peer_endpoint, parent).rows)
    assert client.get_messages(parent)["session_id"] == child
    assert resume_target(tree, parent) == child
    assert compression_tip(tree, parent) == parent


def test_the_index_holds_every_seeded_lineage_with_its_kind(synced):
    assert [kind(i) for i in ids.COMPRESSION_CHAIN] == ["root", "continuation", "continuation"]
    assert [kind(i) for i in (ids.BRANCH_PARENT, *ids.BRANCHES)] == ["root", "branch", "branch"]
    assert kind(ids.DELEGATE_CHILD_1) == kind(ids.DELEGATE_GRANDCHILD) == "delegate"
    assert kind(ids.DELEGATE_BRANCH) == "branch"
    row = IndexedSession.objects.get(endpoint="local", session_id=ids.COMPRESSION_ROOT)
    assert row.visible_in_default_list and row.default_list_id == ids.COMPRESSION_TIP
    hidden = IndexedSession.objects.filter(
        session_id__in=ids.HIDDEN_BY_DEFAULT, visible_in_default_list=True
    )
    assert not hidden.exists()
    assert not IndexedSession.objects.filter(session_id=ids.ARCHIVED).exists()  # never listed


def test_the_tip_agrees_with_session_messages_for_every_indexed_row(synced):
    client = HermesClient(synced)
    checked = 0
    for session_id in IndexedSession.objects.filter(endpoint="local").values_list(
        "session_id", flat=True
    ):
        tree = Tree(lineage(synced, session_id).rows)
        assert resume_target(tree, session_id) == client.get_messages(session_id)["session_id"]
        checked += 1
    assert checked >= 199
    tree = Tree(lineage(synced, ids.COMPRESSION_ROOT).rows)
    assert compression_tip(tree, ids.COMPRESSION_ROOT) == ids.COMPRESSION_TIP


def test_an_incremental_refresh_of_an_unchanged_peer_is_one_list_call(synced):
    report = sync.sync(synced, full=False)
    assert (report.list_calls, report.get_calls, report.counts.any) == (1, 0, False)


def test_a_new_session_is_indexed_by_the_next_incremental_refresh(synced):
    from hermes_ui.audit.idempotency import mint_key

    title = f"Lineage probe {mint_key()[:8]}"
    created = HermesClient(synced).create_session(idempotency_key=mint_key(), title=title)
    report = sync.sync(synced, full=False)
    assert report.counts.added == 1 and report.list_calls <= 4
    row = IndexedSession.objects.get(endpoint="local", session_id=created.id)
    assert row.kind == "root" and row.visible_in_default_list


def test_the_compression_chain_graph(synced, login):
    html = page(login("support"), ids.COMPRESSION_ROOT)
    svg = svg_in(html)
    assert len(node_texts(svg)) == 3
    assert edge_kinds(svg) == ["continuation", "continuation"]
    assert "this session" in box_with(svg, ids.COMPRESSION_TITLE + " |")
    assert "live tip: resume here" in box_with(svg, ids.COMPRESSION_TIP_TITLE)
    assert 'id="lineage-resume"' in html  # "Hermes resumes this conversation in ..."
    assert session_url("local", ids.COMPRESSION_TIP) in links(svg)
    # On the tip itself there is nothing to warn about.
    assert 'id="lineage-resume"' not in page(login("support"), ids.COMPRESSION_TIP)


def test_the_branched_parent_graph(synced, login):
    svg = svg_in(page(login("reviewer"), ids.BRANCH_A))
    assert edge_kinds(svg) == ["branch", "branch"]
    assert "closed · branched" in box_with(svg, ids.BRANCH_TITLE + " |")
    assert "this session" in box_with(svg, ids.BRANCH_A_TITLE)
    assert links(svg) >= {session_url("local", i) for i in (ids.BRANCH_PARENT, *ids.BRANCHES)}


def test_the_delegate_tree_with_its_grandchild(synced, login):
    html = page(login("admin"), ids.DELEGATE_GRANDCHILD)
    svg = svg_in(html)
    assert len(node_texts(svg)) == 5
    assert edge_kinds(svg) == ["branch", "delegate", "delegate", "delegate"]
    assert "subagent" in box_with(svg, ids.DELEGATE_GRANDCHILD[:20])
    assert "this session" in box_with(svg, ids.DELEGATE_GRANDCHILD[:20])
    assert 'class="kind kind-delegate">3 delegates' in html


def test_a_cached_lineage_is_not_drawn_again(synced, login):
    client = login("support")
    assert 'data-render="dot"' in page(client, ids.BRANCH_PARENT)
    before = render.runs
    assert 'data-render="cache"' in page(client, ids.BRANCH_PARENT)
    assert render.runs == before


def test_without_dot_the_lineage_is_an_indented_list(synced, login, settings, tmp_path):
    settings.HERMES_DOT = str(tmp_path / "missing-dot")
    html = page(login("support"), ids.DELEGATE_PARENT)
    assert 'data-render="list"' in html and "<svg" not in html.split('id="lineage-graph"')[1][:400]
    assert "Graphviz (dot) is not installed" in html
    listing = html.split('id="lineage-list"')[1].split("</ul>\n</div>")[0]
    for session_id in (ids.DELEGATE_CHILD_1, ids.DELEGATE_GRANDCHILD, ids.DELEGATE_BRANCH):
        assert session_url("local", session_id) in listing
    # The grandchild is nested two levels below the parent.
    before_grandchild = listing.split(session_url("local", ids.DELEGATE_GRANDCHILD))[0]
    assert before_grandchild.count("<ul>") - before_grandchild.count("</ul>") == 2


def test_past_the_size_limit_the_lineage_is_a_list(synced, login, settings):
    settings.HERMES_LINEAGE_MAX_NODES = 2
    html = page(login("support"), ids.COMPRESSION_TIP)
    assert 'data-render="list"' in html and "more than the 2 the dashboard draws" in html


def test_the_lazy_panel_and_its_fallback_link(synced, login):
    client = login("support")
    detail = client.get(session_url("local", ids.COMPRESSION_ROOT)).content.decode()
    panel_url = session_url("local", ids.COMPRESSION_ROOT, "lineage_panel")
    assert f'hx-get="{panel_url}"' in detail and 'hx-trigger="revealed"' in detail
    assert session_url("local", ids.COMPRESSION_ROOT, "lineage_page") in detail  # without JS
    panel = client.get(panel_url, HTTP_HX_REQUEST="true").content.decode()
    assert len(node_texts(svg_in(panel))) == 3 and "Indexed" in panel
    alone = client.get(session_url("local", ids.TOOL_SESSION, "lineage_panel")).content.decode()
    assert 'id="lineage-alone"' in alone and "<svg" not in alone


def test_pages_stay_up_from_the_index_when_hermes_is_down(synced, login, settings):
    # Down, not moved: the same server (so the same index) stops answering. An
    # endpoint id pointed at another URL is another database (test_peer_identity).
    with use_transport(httpx.MockTransport(raising(httpx.ConnectError))):
        html = page(login("support"), ids.COMPRESSION_C1)
    assert 'id="lineage-stale"' in html and len(node_texts(svg_in(html))) == 3


def test_the_panel_shows_hermes_down_in_place_with_its_status(synced, login, settings):
    unreachable(settings)
    settings.HERMES_READ_RETRIES = 0
    client = login("support")
    panel_url = session_url("local", "not-in-the-index", "lineage_panel")
    panel = client.get(panel_url, HTTP_HX_REQUEST="true")
    assert panel.status_code == 502 and b'data-code="transport"' in panel.content
    assert b'id="lineage-panel"' in panel.content and "HX-Retarget" not in panel
    # The graph region's refresh fails as a whole page: it takes the main area.
    region = client.get(
        session_url("local", "not-in-the-index", "lineage_page"), HTTP_HX_REQUEST="true"
    )
    assert region.status_code == 502 and b'id="main"' in region.content
    assert (region["HX-Retarget"], region["HX-Reselect"], region["HX-Reswap"]) == (
        "#main",
        "#main",
        "outerHTML",
    )


def test_unknown_and_unusable_ids(synced, login):
    client = login("support")
    missing = client.get(session_url("local", "no-such-session-here", "lineage_page"))
    assert missing.status_code == 404 and b"Session not found" in missing.content
    # In the session page's panel the failure renders in place, with its status.
    panel_url = session_url("local", "no-such-session-here", "lineage_panel")
    in_place = client.get(panel_url, HTTP_HX_REQUEST="true")
    assert in_place.status_code == 404 and b'data-code="session_not_found"' in in_place.content
    assert b'id="lineage-panel"' in in_place.content and b"<main" not in in_place.content
    assert client.get(panel_url).status_code == 404
    # A line break never reaches the view (the route refuses it): no 500.
    assert client.get("/e/local/sessions/a%0Ab/lineage/").status_code == 404
    assert client.get(session_url("elsewhere", "x", "lineage_page")).status_code == 404


def test_odd_and_unicode_ids_have_working_lineage_pages(synced, login):
    client = login("support")
    for session_id in (ids.ODD_ID, ids.UNICODE_ID, ids.XSS_TITLE_SESSION):
        html = page(client, session_id)
        assert 'id="lineage-alone"' in html
    assert "&lt;script&gt;" in page(client, ids.XSS_TITLE_SESSION)


def test_every_role_may_view_lineage_and_the_index(synced, login, client):
    for name in ("support", "reviewer", "admin"):
        assert (
            login(name).get(session_url("local", ids.BRANCH_A, "lineage_page")).status_code == 200
        )
        assert login(name).get("/e/local/sessions/").status_code == 200
    anonymous = client.get(session_url("local", ids.BRANCH_A, "lineage_page"))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_the_index_page_searches_filters_and_pages(synced, login):
    client = login("support")
    html = client.get("/e/local/sessions/").content.decode()
    assert "Indexed" in html and "s ago" in html
    assert html.count("<tr>") == 51  # header + 50 rows
    assert "after=" in html and "snap=" in html
    found = client.get("/e/local/sessions/?q=trip+planning&table=on").content.decode()
    for session_id in (ids.BRANCH_PARENT, *ids.BRANCHES):
        assert f'title="{session_id}"' in found
    delegates = client.get("/e/local/sessions/?kind=delegate").content.decode()
    assert f'title="{ids.DELEGATE_GRANDCHILD}"' in delegates
    assert f'title="{ids.BRANCH_A}"' not in delegates
    assert "kind kind-delegate" in delegates and "kind kind-root" not in delegates
    closed_cron = client.get("/e/local/sessions/?source=cron&state=closed").content.decode()
    assert "<td>cron</td>" in closed_cron and "<td>telegram</td>" not in closed_cron
    by_id = client.get(f"/e/local/sessions/?q={ids.COMPRESSION_C1[-8:]}&table=on").content.decode()
    assert f'title="{ids.COMPRESSION_C1}"' in by_id
    bad = client.get("/e/local/sessions/?after=junk&snap=1")
    assert bad.status_code == 400 and b"start from the first page" in bad.content


def test_viewing_an_unchanged_lineage_writes_nothing_to_the_index(synced, login):
    from django.db import connection

    client = login("support")
    url = session_url("local", ids.COMPRESSION_C1, "lineage_page")
    client.get(url)
    statements = []

    def spy(execute, sql, params, many, context):
        statements.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(spy):
        assert client.get(url).status_code == 200
    writes = [s for s in statements if s.split()[0] in {"INSERT", "UPDATE", "DELETE"}]
    assert not [s for s in writes if "index_" in s], writes
