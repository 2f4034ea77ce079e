"""The fake Hermes answers as the real server did when the samples were captured."""

import httpx
import pytest

from tests.support.fakes import FakeHermes
from tests.support.samples import sample

BASE = "http://hermes.test"


@pytest.fixture
def fake():
    return FakeHermes.captured()


@pytest.fixture
def http(fake):
    with httpx.Client(base_url=BASE, transport=fake.transport) as client:
        yield client


def listed(http, **params) -> list[dict]:
    return http.get("/api/sessions", params={"limit": 200, **params}).json()["data"]


def status(http, session_id: str) -> int:
    return http.get(f"/api/sessions/{session_id}").status_code


def test_both_lists_are_the_captured_ones(http):
    assert listed(http) == sample("200_list_lineage_default")["body"]["data"]
    children = listed(http, include_children="true")
    assert children == sample("201_list_lineage_children")["body"]["data"]


def test_an_archived_row_is_never_listed_but_still_answers(http):
    archived = sample("216_get_archived")["body"]
    assert http.get(f"/api/sessions/{archived['session']['id']}").json() == archived
    assert archived["session"]["id"] not in {r["id"] for r in listed(http, include_children="true")}


def test_a_page_is_full_when_it_has_more(http):
    first = http.get("/api/sessions", params={"limit": 10, "include_children": "true"})
    assert first.json()["has_more"] is True and len(first.json()["data"]) == 10
    total = len(listed(http, include_children="true"))
    last = http.get(
        "/api/sessions", params={"limit": 10, "offset": total - 3, "include_children": "true"}
    )
    assert last.json()["has_more"] is False and len(last.json()["data"]) == 3


def test_delete_cascades_to_delegates_and_orphans_the_branch_as_captured(http):
    answer = http.delete("/api/sessions/fx_del_parent")
    assert answer.json() == sample("240_delete_fixture_parent")["body"]
    for sid in ("fx_del_delegate1", "fx_del_delegate2", "fx_del_grandchild"):
        assert status(http, sid) == sample(f"242_get_{sid}")["status"] == 404
    kept = sample("241_get_fixture_branch")["body"]["session"]
    assert (
        http.get(f"/api/sessions/{kept['id']}").json()["session"]["parent_session_id"]
        is (kept["parent_session_id"])
    )
    again = http.delete("/api/sessions/fx_del_parent")
    assert again.status_code == 404 and again.json()["error"]["code"] == "session_not_found"


def test_deleting_a_delegate_parent_takes_its_subagents(http):
    assert http.delete("/api/sessions/20261122_133535_73c8eb5b").status_code == 200
    assert status(http, "20261122_133608_171ac8") == sample("244_get_delegate_after")["status"]


def test_deleting_compression_links_moves_the_projection_as_captured(fake, http):
    root, c1, tip = "20261122_110000_308774", "20261122_110227_e805da", "20261122_111319_846a32"
    http.delete(f"/api/sessions/{root}")
    after = sample("246_get_c1_after_root_delete")["body"]["session"]
    assert fake.get(c1)["parent_session_id"] == after["parent_session_id"] is None
    shown = next(r for r in listed(http) if r.get("_lineage_root_id") == c1)
    captured = next(
        r
        for r in sample("247_list_after_root_delete")["body"]["data"]
        if r.get("_lineage_root_id") == c1
    )
    assert (
        (shown["id"], shown["started_at"])
        == (captured["id"], captured["started_at"])
        == (tip, after["started_at"])
    )
    http.delete(f"/api/sessions/{tip}")
    alone = next(r for r in listed(http) if r["id"] == c1)
    captured = next(r for r in sample("249_list_after_tip_delete")["body"]["data"] if r["id"] == c1)
    assert "_lineage_root_id" not in alone and "_lineage_root_id" not in captured


def test_unknown_routes_answer_as_the_server_did(http):
    answer = http.post("/api/sessions/peer-demo/nope")
    assert (answer.status_code, answer.text) == (404, sample("141_unknown_route")["body"])
    missing = http.get("/api/sessions/does-not-exist").json()
    assert missing == sample("031_get_404")["body"]
