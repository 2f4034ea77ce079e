"""Browsing against the real Hermes API server (hermes-agent 0.19.0) and its demo seed."""

import httpx
import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.ids import encode_path_id
from hermes_ui.web.links import session_url
from tests.support.peers import unreachable

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


def test_the_launcher_refuses_a_placeholder_key_before_starting(tmp_path):
    from devtools.peer.launcher import Peer, PeerConfig, PeerError

    with pytest.raises(PeerError, match=r"placeholder|at least 16"):
        Peer(PeerConfig(home=tmp_path, key="changeme")).start()


def test_walk_list_page_filter_detail_and_compressed_tip(login, peer_endpoint):
    support = login("support")
    # Other tests add api_server sessions to the shared peer; the seeded cli
    # rows are a stable population to walk.
    first = support.get("/e/local/sessions/?source=cli&limit=50")
    assert first.status_code == 200
    page = first.content.decode()
    # The compressed chain appears once, as its tip, keeping the root id.
    assert ids.COMPRESSION_TIP_TITLE in page
    assert "Shows the tip of a compressed chain" in page
    assert session_url("local", ids.COMPRESSION_ROOT) in page
    # Delegates and continuations are hidden from the default list.
    assert session_url("local", ids.DELEGATE_CHILD_1) not in page
    # Page two advances by the returned count.
    assert "offset=50" in page
    second = support.get("/e/local/sessions/?source=cli&limit=50&offset=50").content.decode()
    assert second.count("<tr>") > 0
    # The exact source filter.
    only_cron = support.get("/e/local/sessions/?source=cron&limit=200").content.decode()
    assert "<td>cron</td>" in only_cron
    assert "<td>telegram</td>" not in only_cron
    # Detail of the compression root resolves to the tip and says so.
    detail = support.get(session_url("local", ids.COMPRESSION_ROOT)).content.decode()
    assert 'id="resolved-note"' in detail
    assert session_url("local", ids.COMPRESSION_TIP) in detail
    tip = support.get(session_url("local", ids.COMPRESSION_TIP)).content.decode()
    assert 'id="resolved-note"' not in tip


def test_paging_through_the_whole_list_sees_every_visible_row_once(peer_endpoint):
    client = HermesClient(peer_endpoint)
    seen, offset = [], 0
    while True:
        page = client.list_sessions(limit=37, offset=offset)
        seen += [row["id"] for row in page["data"]]
        offset += len(page["data"])
        if len(page["data"]) < 37:
            break
    assert len(seen) == len(set(seen))
    assert ids.DELEGATE_CHILD_1 not in seen and ids.ARCHIVED not in seen
    assert ids.BRANCH_A in seen


def every_page(client, query: str = "") -> str:
    """Every page of Hermes' list, 200 rows at a time, joined: other tests on this
    worker's peer add sessions, so a seeded one may be past the first page."""
    page, offset = "", 0
    while True:
        more = client.get(f"/e/local/sessions/?{query}limit=200&offset={offset}")
        page += more.content.decode()
        if more.content.count(b'<code title="') < 200:
            return page
        offset += 200


def test_admin_children_view_labels_every_kind(login, peer_endpoint):
    page = every_page(login("admin"), "children=1&")

    def kind_of(session_id):
        cell = page.split(f'<code title="{session_id}">', 1)[1].split("</tr>", 1)[0]
        return cell.split('class="kind kind-', 1)[1].split('"', 1)[0]

    assert kind_of(ids.COMPRESSION_ROOT) == "root"
    assert kind_of(ids.COMPRESSION_C1) == "continuation"
    assert kind_of(ids.COMPRESSION_TIP) == "continuation"
    assert kind_of(ids.BRANCH_A) == "branch"
    assert kind_of(ids.DELEGATE_CHILD_1) == "delegate"
    assert kind_of(ids.DELEGATE_GRANDCHILD) == "delegate"
    assert ids.ARCHIVED not in page  # the API never lists archived rows


def test_archived_rows_still_open_by_id(login, peer_endpoint):
    answer = login("support").get(session_url("local", ids.ARCHIVED))
    assert answer.status_code == 200


def test_tool_calls_results_and_reasoning_from_the_real_server(login, peer_endpoint):
    page = login("support").get(session_url("local", ids.TOOL_SESSION)).content.decode()
    assert "Tool call <code>" in page
    assert 'Result of <a href="#call-' in page
    assert '<details class="reasoning">' in page


def test_the_long_transcript_opens_with_its_first_page(login, peer_endpoint, settings):
    settings.HERMES_MESSAGES_PAGE_SIZE = 100
    support = login("support")
    page = support.get(session_url("local", ids.LONG_SESSION)).content.decode()
    assert page.count('<article class="msg ') == 100
    assert f"{ids.LONG_SESSION_MESSAGES:,} messages" in page
    assert 'hx-trigger="revealed"' in page
    next_url = page.split('class="load-more" hx-get="', 1)[1].split('"', 1)[0].replace("&amp;", "&")
    chunk = support.get(next_url, HTTP_HX_REQUEST="true").content.decode()
    assert chunk.count('<article class="msg ') == 100


@pytest.mark.parametrize("name", ["UNICODE_ID", "ODD_ID"])
def test_odd_ids_open_through_percent_encoding(login, peer_endpoint, name):
    session_id = getattr(ids, name)
    answer = login("support").get(session_url("local", session_id))
    assert answer.status_code == 200
    assert f"<code>{session_id}</code>" in answer.content.decode().replace("&#x27;", "'")


def test_xss_title_is_escaped_everywhere(login, peer_endpoint):
    support = login("support")
    listing = every_page(support)
    assert ids.XSS_TITLE_SESSION in listing
    detail = support.get(session_url("local", ids.XSS_TITLE_SESSION)).content.decode()
    for page in (listing, detail):
        assert "<script>alert(1)</script>" not in page
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page


def test_an_unknown_session_is_a_404_page(login, peer_endpoint):
    answer = login("support").get(session_url("local", "no-such-session-here"))
    assert answer.status_code == 404
    assert "Session not found" in answer.content.decode()


def test_a_wrong_key_is_a_clear_page_not_a_crash(login, settings, hermes_peer):
    from hermes_ui.platform.endpoints import Endpoint

    settings.HERMES_ENDPOINTS = {"local": Endpoint("local", hermes_peer.base_url, "w" * 24)}
    answer = login("support").get("/e/local/sessions/")
    assert answer.status_code == 502
    assert "refused the dashboard" in answer.content.decode()


def test_hermes_down_is_a_clear_page(login, settings):
    unreachable(settings)
    settings.HERMES_READ_RETRIES = 0
    answer = login("support").get("/e/local/sessions/")
    assert answer.status_code == 502
    assert "Hermes is unreachable" in answer.content.decode()


def test_client_rules_hold_against_the_real_server(peer_endpoint):
    client = HermesClient(peer_endpoint)
    with pytest.raises(e.NotFound):
        client.get_session("definitely-not-here")
    # A slash in an id is one encoded segment: the server sees "a/b", not a route.
    with pytest.raises(e.NotFound) as info:
        client.get_messages("a/b")
    assert info.value.code == "session_not_found"
    raw = httpx.get(
        f"{peer_endpoint.base_url}/api/sessions/{encode_path_id(ids.ODD_ID)}",
        headers={"Authorization": f"Bearer {peer_endpoint.api_key}"},
    )
    assert raw.json()["session"]["id"] == ids.ODD_ID
    assert client.get_session(ids.ODD_ID).id == ids.ODD_ID
