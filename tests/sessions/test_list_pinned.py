"""The session list's pages when a newer Hermes adds pinned rows past the limit."""

from hermes_ui.sessions.list_rows import dedupe, page_context

PARAMS = {"source": "", "children": False, "limit": 2}


def rows(*ids):
    return [{"id": sid, "source": "cli"} for sid in ids]


def test_a_page_longer_than_the_limit_links_on_by_what_came_back():
    answer = rows("a", "b", "pinned", "a")
    shown = dedupe(answer)
    context = page_context("local", shown, PARAMS, offset=0, limit=2, returned=len(answer))
    assert [row.s["id"] for row in shown] == ["a", "b", "pinned"]
    assert "offset=4" in context["next_url"] and context["duplicates"] == 1


def test_a_short_page_is_the_last():
    context = page_context("local", dedupe(rows("a")), PARAMS, offset=4, limit=2, returned=1)
    assert context["next_url"] is None
