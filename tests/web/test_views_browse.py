"""Browsing pages against captured payloads: list, detail, transcript, failures."""

import copy
import json

import httpx
import pytest

from hermes_ui.web.links import session_url
from tests.support.fakes import raising
from tests.support.samples import response, sample

pytestmark = pytest.mark.django_db


def list_payload(rows, limit=50, offset=0):
    return httpx.Response(
        200,
        json={
            "object": "list",
            "data": rows,
            "limit": limit,
            "offset": offset,
            "has_more": len(rows) == limit,
        },
    )


def list_response(payload):
    return httpx.Response(200, json=payload)


def row(i, **extra):
    return {
        "id": f"s{i}",
        "source": "cli",
        "title": f"Session {i}",
        "message_count": i,
        "last_active": 1796212000.0 - i,
        "preview": f"preview {i}",
        **extra,
    }


# -- access ---------------------------------------------------------------------


def test_every_page_needs_a_login(client, recorder):
    for url in ["/", "/e/local/sessions/", session_url("local", "peer-demo")]:
        answer = client.get(url)
        assert answer.status_code == 302
        assert answer["Location"].startswith("/accounts/login/")
    assert recorder.requests == []


def test_root_redirects_to_the_default_endpoint(login, recorder):
    answer = login("support").get("/")
    assert answer.status_code == 302
    assert answer["Location"] == "/e/local/sessions/"


def test_an_unknown_endpoint_is_a_404_page(login, recorder):
    answer = login("support").get("/e/elsewhere/sessions/")
    assert answer.status_code == 404
    assert "No Hermes endpoint is configured" in answer.content.decode()


# -- list -----------------------------------------------------------------------


def test_list_shows_rows_from_hermes(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = "200_list_lineage_default"
    page = login("support").get("/e/local/sessions/").content.decode()
    assert "Trip planning #2" in page
    assert "Refactor billing module #3" in page
    assert recorder.requests[0].url.params["limit"] == "50"


def test_a_compressed_tip_row_says_so_and_keeps_the_root_id(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = "200_list_lineage_default"
    page = login("support").get("/e/local/sessions/").content.decode()
    assert "Shows the tip of a compressed chain" in page
    assert session_url("local", "20261122_110000_308774") in page


def test_next_page_advances_by_the_returned_count(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = list_payload([row(i) for i in range(10)], 10, 20)
    page = login("support").get("/e/local/sessions/?limit=10&offset=20").content.decode()
    assert "offset=30" in page
    assert "offset=10" in page  # previous


def test_a_short_page_stops_paging_even_if_has_more_says_otherwise(login, recorder):
    payload = {
        "object": "list",
        "data": [row(1), row(2)],
        "limit": 10,
        "offset": 0,
        "has_more": True,
    }
    recorder.routes[("GET", "/api/sessions")] = httpx.Response(200, json=payload)
    page = login("support").get("/e/local/sessions/?limit=10").content.decode()
    assert "End of list" in page
    assert 'rel="next"' not in page


def test_an_empty_page_says_so(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = list_payload([], 50, 100)
    page = login("support").get("/e/local/sessions/?offset=100").content.decode()
    assert "No sessions on this page" in page
    assert 'rel="next"' not in page


def test_rows_are_deduplicated_by_id(login, recorder):
    rows = [row(1), row(2), row(1)]
    recorder.routes[("GET", "/api/sessions")] = list_payload(rows, 3)
    page = login("support").get("/e/local/sessions/?limit=3").content.decode()
    assert page.count(session_url("local", "s1") + '"') == 1
    assert "1 duplicate row removed" in page


def test_source_filter_is_exact_and_offered_from_sources_seen(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = "200_list_lineage_default"
    support = login("support")
    support.get("/e/local/sessions/")
    page = support.get("/e/local/sessions/?source=telegram").content.decode()
    assert recorder.requests[-1].url.params["source"] == "telegram"
    for source in ["api_server", "cli", "cron", "discord", "telegram"]:
        assert f'<option value="{source}"' in page
    assert '<option value="telegram" selected>' in page


def test_htmx_filter_requests_get_only_the_results_partial(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = "200_list_lineage_default"
    page = login("support").get("/e/local/sessions/?source=cli", HTTP_HX_REQUEST="true")
    body = page.content.decode()
    assert body.lstrip().startswith('<section id="results"')
    assert "<html" not in body


@pytest.mark.parametrize("query", ["offset=abc", "limit=0", "limit=500", "offset=-1"])
def test_bad_list_parameters_are_a_clear_400(login, recorder, query):
    answer = login("support").get(f"/e/local/sessions/?{query}")
    assert answer.status_code == 400
    assert "not valid" in answer.content.decode()
    assert recorder.requests == []


def test_include_children_is_admin_only(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = "201_list_lineage_children"
    for name in ["support", "reviewer"]:
        assert login(name).get("/e/local/sessions/?children=1").status_code == 403
    assert recorder.requests == []
    assert "Include children" not in login("support").get("/e/local/sessions/").content.decode()


def test_include_children_labels_each_row_by_kind(login, recorder):
    recorder.routes[("GET", "/api/sessions")] = "201_list_lineage_children"
    page = login("admin").get("/e/local/sessions/?children=1").content.decode()
    assert recorder.requests[0].url.params["include_children"] == "true"

    def kind_of(session_id):
        marker = f'<code title="{session_id}">'
        cell = page.split(marker, 1)[1].split("</tr>", 1)[0]
        return cell.split('class="kind kind-', 1)[1].split('"', 1)[0]

    assert kind_of("20261122_110000_308774") == "root"
    assert kind_of("20261122_110227_e805da") == "continuation"
    assert kind_of("20261122_111319_846a32") == "continuation"
    assert kind_of("20261122_123158_e3c29b") == "branch"
    assert kind_of("20261122_133608_171ac8") == "delegate"
    assert kind_of("fx_del_grandchild") == "delegate"


def test_titles_and_previews_from_hermes_are_escaped(login, recorder):
    evil = row(1, title="<script>alert(1)</script>", preview="<img src=x onerror=alert(2)>")
    recorder.routes[("GET", "/api/sessions")] = list_payload([evil])
    page = login("support").get("/e/local/sessions/").content.decode()
    assert "<script>alert(1)" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "<img src=x" not in page


# -- detail ---------------------------------------------------------------------


def test_session_page_shows_the_row_and_the_transcript(login, recorder):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = "090_messages"
    page = login("support").get(session_url("local", "peer-demo")).content.decode()
    count = len(sample("090_messages")["body"]["data"])
    assert page.count('<article class="msg ') == count
    assert '<div class="md"><p>Echo: hello peer</p>' in page
    assert "finish: stop" in page
    assert "resolved-note" not in page


def test_a_resolved_tip_is_announced_and_linked(login, recorder):
    root = "20261122_110000_308774"
    recorder.routes[("GET", f"/api/sessions/{root}")] = "210_get_root"
    recorder.routes[("GET", f"/api/sessions/{root}/messages")] = "211_messages_root"
    tip = sample("211_messages_root")["body"]["session_id"]
    assert tip != root
    page = login("support").get(session_url("local", root)).content.decode()
    assert 'id="resolved-note"' in page
    assert session_url("local", tip) in page


def test_tool_calls_are_pretty_printed_and_tied_to_their_results(login, recorder):
    recorder.routes[("GET", "/api/sessions/tooly")] = "030_get"
    recorder.routes[("GET", "/api/sessions/tooly/messages")] = "161_messages_with_tool"
    page = login("support").get(session_url("local", "tooly")).content.decode()
    assert "Tool call <code>todo</code>" in page
    assert "&quot;todos&quot;: [\n    {" in page  # indented JSON, escaped
    assert 'Result of <a href="#call-' in page


def test_reasoning_is_collapsed_and_markdown_is_sanitized(login, recorder):
    messages = copy.deepcopy(sample("090_messages")["body"])
    messages["data"][1]["reasoning"] = "think **hard**"
    messages["data"][1]["content"] = (
        "**bold** <script>alert(1)</script> [x](javascript:alert(2)) [ok](https://example.org)"
    )
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = list_response(messages)
    page = login("support").get(session_url("local", "peer-demo")).content.decode()
    assert '<details class="reasoning"><summary>Reasoning</summary>' in page
    assert "<strong>hard</strong>" in page
    assert "<strong>bold</strong>" in page
    assert "<script>alert(1)" not in page
    assert 'href="javascript' not in page
    assert 'href="https://example.org" rel="noopener noreferrer nofollow"' in page


def test_image_parts_are_shown_without_fetching_remote_images(login, recorder):
    messages = copy.deepcopy(sample("090_messages")["body"])
    messages["data"][0]["content"] = [
        {"type": "text", "text": "look"},
        {"type": "image_url", "image_url": {"url": "https://example.org/cat.png"}},
    ]
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = list_response(messages)
    page = login("support").get(session_url("local", "peer-demo")).content.decode()
    assert 'Image: <a href="https://example.org/cat.png"' in page
    assert '<img class="part-image" src="https://' not in page


@pytest.mark.parametrize(
    "url",
    [
        "javascript:alert(document.domain)",
        " JavaScript:alert(1)",
        "vbscript:msgbox(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "file:///etc/passwd",
    ],
)
def test_image_parts_with_other_schemes_are_shown_as_text(login, recorder, url):
    messages = copy.deepcopy(sample("090_messages")["body"])
    messages["data"][0]["content"] = [{"type": "image_url", "image_url": {"url": url}}]
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = list_response(messages)
    page = login("support").get(session_url("local", "peer-demo")).content.decode()
    assert "Image (not a web link, shown as text): <code>" in page
    assert 'class="part-image"' not in page
    shown = page.split("Image (not a web link", 1)[1].split("</p>", 1)[0]
    assert "<a " not in shown and "href=" not in shown


def long_transcript(n=2100):
    base = sample("090_messages")["body"]["data"][0]
    rows = []
    for i in range(1, n + 1):
        message = dict(
            base, id=i, content=f"message number {i}", role="user" if i % 2 else "assistant"
        )
        rows.append(message)
    return {"object": "list", "session_id": "long", "data": rows}


def test_a_long_transcript_renders_its_first_page_and_loads_the_rest(login, recorder, settings):
    settings.HERMES_MESSAGES_PAGE_SIZE = 100
    recorder.routes[("GET", "/api/sessions/long")] = "030_get"
    recorder.routes[("GET", "/api/sessions/long/messages")] = httpx.Response(
        200, json=long_transcript()
    )
    support = login("support")
    page = support.get(session_url("local", "long")).content.decode()
    assert page.count('<article class="msg ') == 100
    assert "message number 100<" in page
    assert "message number 101<" not in page
    next_url = session_url("local", "long", "session_messages", after=100)
    assert f'hx-get="{next_url.replace("&", "&amp;")}"' in page
    chunk = support.get(next_url, HTTP_HX_REQUEST="true").content.decode()
    assert "message number 101<" in chunk and "message number 200<" in chunk
    assert "message number 201<" not in chunk
    assert chunk.count('<article class="msg ') == 100
    assert "<html" not in chunk
    # The chunk came from the short-lived cache, not a second full fetch.
    assert sum(r.url.path.endswith("/messages") for r in recorder.requests) == 1
    # Without JavaScript the same link is a readable page.
    full = support.get(next_url).content.decode()
    assert "<html" in full and "messages from 101 of 2100" in full


@pytest.mark.parametrize("session_id", ["a/b", "50% off?#x", "ünï çødé 🚀", "..", " lead"])
def test_odd_ids_round_trip_through_the_url(login, recorder, session_id):
    seen = []

    def get(request):
        seen.append(request.url.raw_path.decode())
        body = copy.deepcopy(sample("030_get")["body"])
        body["session"]["id"] = session_id
        return httpx.Response(200, json=body)

    def messages(request):
        return httpx.Response(200, json={"object": "list", "session_id": session_id, "data": []})

    recorder.default = lambda r: messages(r) if r.url.path.endswith("/messages") else get(r)
    answer = login("support").get(session_url("local", session_id))
    assert answer.status_code == 200, answer.content[:300]
    from hermes_ui.hermes.ids import encode_path_id

    assert seen == [f"/api/sessions/{encode_path_id(session_id)}"]


# -- failures ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("answer", "status", "text"),
    [
        (raising(httpx.ConnectError), 502, "Hermes is unreachable"),
        (raising(httpx.ReadTimeout), 504, "Hermes is not answering"),
        (lambda r: response("002_auth_wrong"), 502, "refused the dashboard"),
        (
            lambda r: httpx.Response(
                503,
                json={
                    "error": {
                        "code": "session_db_unavailable",
                        "message": "Session database unavailable",
                    }
                },
            ),
            503,
            "cannot open its session database",
        ),
        (lambda r: httpx.Response(200, text="not json"), 502, "unexpected answer"),
    ],
)
def test_hermes_failures_render_as_banners_with_a_fitting_status(
    login, recorder, answer, status, text
):
    recorder.default = answer
    support = login("support")
    for url in ["/e/local/sessions/", session_url("local", "peer-demo")]:
        page = support.get(url)
        assert page.status_code == status
        assert text in page.content.decode()
        assert "Traceback" not in page.content.decode()


def test_an_unknown_session_is_a_404_page(login, recorder):
    recorder.routes[("GET", "/api/sessions/does-not-exist")] = "031_get_404"
    page = login("support").get(session_url("local", "does-not-exist"))
    assert page.status_code == 404
    assert "Session not found" in page.content.decode()


def test_a_bad_after_parameter_is_a_400(login, recorder):
    answer = login("support").get(session_url("local", "x", "session_messages") + "?after=zz")
    assert answer.status_code == 400


def test_open_by_id_form(login, recorder):
    recorder.routes[("GET", "/api/sessions/peer-demo")] = "030_get"
    recorder.routes[("GET", "/api/sessions/peer-demo/messages")] = "090_messages"
    page = login("support").get("/e/local/open/?id=peer-demo", follow=True)
    assert page.redirect_chain == [("/e/local/sessions/peer-demo/", 302)]
    assert page.status_code == 200
    assert "Echo: hello peer" in page.content.decode()


def test_json_helper_is_valid():
    assert json.loads(json.dumps(long_transcript(3)))["data"][2]["id"] == 3


def test_dot_ids_reach_each_action_through_its_query_route(login, recorder):
    recorder.routes[("GET", "/api/sessions/%2E%2E/messages")] = httpx.Response(
        200, json={"object": "list", "session_id": "..", "data": []}
    )
    support = login("support")
    assert session_url("local", "..", "session_messages") == "/e/local/messages/?id=.."
    assert support.get("/e/local/messages/?id=..").status_code == 200
    # The query route is the action's own: nothing in it can pick another view.
    answer = support.get("/e/local/open/?id=x&view=home")
    assert answer.status_code == 302 and answer["Location"] == "/e/local/sessions/x/"
    assert support.get("/e/local/messages/").status_code == 400


def test_a_missing_id_is_the_same_clear_400_on_open_and_on_every_action(login, recorder):
    support = login("support")
    for url in ("/e/local/open/", "/e/local/open/?id=", "/e/local/messages/", "/e/local/export/"):
        answer = support.get(url)
        assert answer.status_code == 400, url
        assert "Which session? Type a session id." in answer.content.decode(), url
