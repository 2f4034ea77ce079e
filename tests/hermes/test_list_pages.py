"""The one pager over ``sessions_list`` (``hermes_ui.hermes.pages``), against scripted
answers (httpx.MockTransport): the offset advances by the rows returned, a short or
empty page ends the walk whatever ``has_more`` says, and ids are de-duplicated."""

import time

import httpx
import pytest

from hermes_ui.hermes import errors as e
from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.pages import list_pages, list_rows
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY

ENDPOINT = Endpoint("local", "http://hermes.test", TEST_KEY)


def row(session_id):
    return {"id": session_id, "source": "api_server", "title": None}


class Script:
    """Answers the n-th list call with the n-th scripted page (``has_more`` as the provider
    sets it: the page is full) and records each call's parameters."""

    def __init__(self, *pages, has_more=None):
        self.pages = list(pages)
        self.has_more = has_more
        self.calls: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        params = dict(request.url.params)
        self.calls.append(params)
        data = self.pages.pop(0) if self.pages else []
        limit = int(params["limit"])
        more = len(data) == limit if self.has_more is None else self.has_more
        body = {
            "object": "list",
            "data": data,
            "limit": limit,
            "offset": int(params["offset"]),
            "has_more": more,
        }
        return httpx.Response(200, json=body)

    @property
    def offsets(self) -> list[int]:
        return [int(call["offset"]) for call in self.calls]

    def client(self) -> HermesClient:
        return HermesClient(ENDPOINT, transport=httpx.MockTransport(self), retry_backoff=0.0)


def ids(rows):
    return [r["id"] for r in rows]


def test_the_offset_advances_by_the_rows_returned_not_the_rows_kept():
    # A full page of 3 carrying a duplicate and a row without an id: 3 rows were
    # returned, so the next page starts at 3, not at the 1 row kept.
    script = Script([row("a"), row("a"), {"title": "no id"}], [row("b")])
    pages = list(list_pages(script.client(), include_children=True, page_size=3))
    assert script.offsets == [0, 3]
    assert [(p.offset, p.returned, ids(p.rows), p.duplicates) for p in pages] == [
        (0, 3, ["a"], 1),
        (3, 1, ["b"], 0),
    ]


def test_a_short_page_ends_the_walk_even_when_has_more_says_otherwise():
    script = Script([row("a"), row("b")], [row("c")], has_more=True)
    assert ids(list_rows(script.client(), include_children=False, page_size=2)) == ["a", "b", "c"]
    assert script.offsets == [0, 2]


def test_an_empty_page_ends_the_walk_and_is_still_a_page():
    script = Script([row("a"), row("b")], [])
    pages = list(list_pages(script.client(), include_children=False, page_size=2))
    assert [len(p.rows) for p in pages] == [2, 0]
    assert script.offsets == [0, 2]

    empty = Script([])
    assert list(list_rows(empty.client(), include_children=False)) == []
    assert empty.offsets == [0]


def test_ids_seen_on_an_earlier_page_are_dropped_and_counted():
    # Activity moved "c" down a page while the walk ran: it is listed twice.
    script = Script([row("a"), row("b"), row("c")], [row("c"), row("d"), row("b")], [row("e")])
    pages = list(list_pages(script.client(), include_children=True, page_size=3))
    assert [ids(p.rows) for p in pages] == [["a", "b", "c"], ["d"], ["e"]]
    assert [p.duplicates for p in pages] == [0, 2, 0]
    assert script.offsets == [0, 3, 6]


def test_max_pages_bounds_the_calls():
    script = Script(*[[row(f"{n}-a"), row(f"{n}-b")] for n in range(5)])
    rows = list(list_rows(script.client(), include_children=True, page_size=2, max_pages=3))
    assert len(rows) == 6 and script.offsets == [0, 2, 4]


def test_the_parameters_reach_hermes():
    script = Script([])
    list(list_rows(script.client(), include_children=True, source="cli", page_size=50))
    assert script.calls == [
        {"limit": "50", "offset": "0", "source": "cli", "include_children": "true"}
    ]
    default = Script([])
    list(list_rows(default.client(), include_children=False))
    assert default.calls == [{"limit": "200", "offset": "0"}]


def test_ahead_asks_for_the_next_page_while_the_caller_works_on_this_one():
    script = Script([row("a"), row("b")], [row("c"), row("d")], [row("e")])
    beats = []
    walk = list_pages(
        script.client(),
        include_children=True,
        page_size=2,
        ahead=True,
        before_page=lambda: beats.append(len(script.calls)),
    )
    first = next(walk)
    give_up = time.monotonic() + 5
    while len(script.calls) < 2 and time.monotonic() < give_up:
        time.sleep(0.01)
    assert ids(first.rows) == ["a", "b"] and script.offsets == [0, 2]
    assert [ids(p.rows) for p in walk] == [["c", "d"], ["e"]]
    assert script.offsets == [0, 2, 4]
    # Called before each page is waited for; the second had been asked for already.
    assert len(beats) == 3 and beats[:2] == [0, 2]


def test_no_page_is_asked_for_ahead_after_a_short_one():
    script = Script([row("a")])
    assert [
        ids(p.rows)
        for p in list_pages(script.client(), include_children=True, page_size=2, ahead=True)
    ] == [["a"]]
    assert script.offsets == [0]


def test_a_failed_page_ends_the_walk_with_the_error():
    answers = [httpx.Response(200, json={"object": "list", "data": [row("a"), row("b")]})]

    def handler(request):
        return answers.pop(0) if answers else httpx.Response(401, json={"error": {}})

    client = HermesClient(ENDPOINT, transport=httpx.MockTransport(handler), retry_backoff=0.0)
    walk = list_rows(client, include_children=True, page_size=2)
    assert ids([next(walk), next(walk)]) == ["a", "b"]
    with pytest.raises(e.HermesError):
        next(walk)


def test_a_page_longer_than_the_limit_with_pinned_rows_is_full_and_deduplicated():
    # A newer Hermes adds pinned rows past the limit, on every page it answers.
    pinned = [row("p1"), row("p2")]
    first, second = [row("a"), row("b"), row("c")], [row("d"), row("e"), row("f")]
    script = Script([*first, *pinned], [*second, *pinned], pinned)
    rows = list(list_rows(script.client(), include_children=False, page_size=3))
    assert ids(rows) == ["a", "b", "c", "p1", "p2", "d", "e", "f"]
    assert script.offsets == [0, 5, 10]  # advanced by what came back
