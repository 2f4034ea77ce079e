"""Transcripts longer than a page, on the paging peer: 0.19.0 with the newer /messages
rules in front (devtools/peer/paging.py). A newer Hermes answers a plain read with
only the newest 500 rows; every place of the dashboard must still see all of them."""

import asyncio
import json
import logging
from urllib.parse import quote

import httpx
import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.web.links import session_url
from tests.chat.turns import finished, only_turn, send
from tests.deletion.helpers import request_deletion

pytestmark = [pytest.mark.peer, pytest.mark.django_db]
SID, TOTAL = ids.PAGED_SESSION, ids.PAGED_MESSAGES


def raw(peer, session_id=SID, **params):
    """One call to the paging peer, bypassing the dashboard."""
    path = f"/api/sessions/{quote(session_id, safe='')}/messages"
    headers = {"Authorization": f"Bearer {peer.key}"}
    return httpx.get(peer.base_url + path, params=params, headers=headers, timeout=30)


def test_the_paging_peer_pages_as_the_newer_handler_does(paging_peer):
    plain = raw(paging_peer).json()
    assert len(plain["data"]) == 500  # no limit: only the newest 500 rows
    assert plain["data"][0]["content"].startswith(f"Message {TOTAL - 499} of")
    assert plain["pagination"] == {"limit": 500, "offset": 0, "order": "latest", "returned": 500}
    last = raw(paging_peer, order="oldest", limit=900, offset=1000).json()
    assert last["pagination"] == {"limit": 500, "offset": 1000, "order": "oldest", "returned": 200}
    assert last["data"][0]["content"] == f"Message 1001 of {TOTAL}."
    latest = raw(paging_peer, order="latest", limit=10, offset=10).json()["data"]
    assert [r["content"] for r in latest][-1] == f"Message {TOTAL - 10} of {TOTAL}."
    for bad in ({"limit": "x"}, {"limit": 0}, {"offset": -1}, {"order": "newest"}):
        answer = raw(paging_peer, **bad)
        assert answer.status_code == 400 and answer.json()["error"]["code"] == "invalid_pagination"
    # 0.19.0 behind it answers everything, without pagination.
    behind = raw(paging_peer.upstream, order="oldest", limit=5).json()
    assert len(behind["data"]) == TOTAL and "pagination" not in behind


def test_the_session_page_shows_the_first_and_the_last_message(paging_endpoint, login):
    client = login("support")
    html = client.get(session_url("local", SID)).content.decode()
    assert f"The password is {ids.PAGED_FIRST_WORD}." in html
    assert "1,200 messages" in html
    html = client.get(session_url("local", SID, at="latest")).content.decode()
    assert f"Goodbye, {ids.PAGED_LAST_WORD}." in html
    assert "from message 1,101 of 1,200" in html


def test_search_finds_a_word_said_only_in_the_first_message(paging_endpoint, login):
    report = sync.sync(paging_endpoint, full=True)
    assert report.error_code == ""
    html = login("reviewer").get("/e/local/sessions/", {"q": ids.PAGED_FIRST_WORD}).content.decode()
    results = html.split('id="content-results"', 1)[1].split("</section>", 1)[0]
    assert "1 matching message in 1 transcript" in results
    assert f"<mark>{ids.PAGED_FIRST_WORD}</mark>" in results


def test_the_json_export_holds_every_message(paging_endpoint, login):
    answer = login("admin").get(session_url("local", SID, "session_export", format="json"))
    assert answer.status_code == 200
    (item,) = json.loads(b"".join(answer.streaming_content))["sessions"]
    assert len(item["messages"]) == TOTAL
    assert item["messages"][0]["content"].endswith(f"{ids.PAGED_FIRST_WORD}.")
    assert len({row["id"] for row in item["messages"]}) == TOTAL


def test_the_api_returns_every_message(paging_endpoint, bearer):
    answer = bearer("admin").get(f"/api/v1/e/local/messages/{quote(SID)}?redact=false")
    assert answer.status_code == 200
    rows = answer.json()["data"]
    assert len(rows) == TOTAL
    assert rows[0]["content"].endswith(f"{ids.PAGED_FIRST_WORD}.")
    assert rows[-1]["content"].endswith(f"{ids.PAGED_LAST_WORD}.")


def test_the_latest_turns_are_one_page_call(paging_endpoint, login, caplog):
    caplog.set_level(logging.DEBUG, logger="hermes_ui.hermes")
    html = login("support").get(session_url("local", SID, at="latest")).content.decode()
    assert f"Goodbye, {ids.PAGED_LAST_WORD}." in html
    assert "Message 1101 of" in html and "Message 1100 of" not in html
    calls = [r for r in caplog.records if "op=session_messages" in r.getMessage()]
    assert len(calls) == 1


def test_a_hidden_compaction_summary_is_shown_collapsed_and_labelled(
    paging_peer, paging_endpoint, login
):
    summary = raw(paging_peer, ids.PAGED_COMPACTED).json()["data"][0]
    assert summary["content"] == "" and summary["display_kind"] == "hidden"
    html = login("support").get(session_url("local", ids.PAGED_COMPACTED)).content.decode()
    assert '<details class="compaction-hidden"><summary>Compaction summary' in html
    assert "CONTEXT COMPACTION" not in html and "After the summary." in html
    assert "2 messages" in html


def test_everything_else_passes_through_streams_included(paging_endpoint):
    client = HermesClient(paging_endpoint)
    try:
        client.create_session(idempotency_key=mint_key(), session_id="paging-chat")
        assert client.chat("paging-chat", message="hello")["message"]["content"] == "Echo: hello"

        async def stream():
            return [ev.name async for ev in client.chat_stream("paging-chat", message="again")]

        names = asyncio.run(stream())
        assert names[0] == "run.started" and names[-1] == "done"
        assert [r["content"] for r in client.get_messages("paging-chat")["data"]] == [
            "hello",
            "Echo: hello",
            "again",
            "Echo: again",
        ]
    finally:
        client.close()


def test_a_deletion_snapshot_counts_every_message(paging_endpoint, login):
    case = request_deletion(login("support"), SID)
    assert case.snapshot["active_message_count"] == TOTAL


def test_a_turn_on_a_long_session_reads_only_last_pages(
    chat_db, paging_peer, paging_endpoint, login, caplog
):
    newest = raw(paging_peer, ids.PAGED_3000, order="latest", limit=1).json()["data"][-1]
    caplog.set_level(logging.DEBUG, logger="hermes_ui.hermes")
    assert send(login("support"), ids.PAGED_3000, "one more").status_code == 200
    turn = finished(only_turn().pk)
    assert turn.state == "completed" and turn.baseline_message_id == newest["id"]
    assert turn.durability["status"] == "verified"
    assert turn.durability["user_row"] > newest["id"]
    reads = [r for r in caplog.records if "op=session_messages" in r.getMessage()]
    assert len(reads) == 2  # the newest message before, the last page after
