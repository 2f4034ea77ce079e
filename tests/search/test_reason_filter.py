"""``reason:<end_reason>``: sessions closed with one of the end reasons listed."""

import pytest

from hermes_ui.index import sync
from hermes_ui.search import content_search, queries
from hermes_ui.search.selection import resolve
from hermes_ui.search.syntax import parse
from tests.index.test_sync import seed_lineage


def test_reason_takes_one_or_more_end_reasons():
    assert parse("reason:error").reasons == ("error",)
    query = parse('refund reason:"error, failed,error" -x')
    assert query.reasons == ("error", "failed") and query.has_filters
    assert [t.text for t in query.terms] == ["refund", "-x"]
    assert parse('reason:""').errors == ["reason: takes an end reason such as error or cli_close."]
    assert "control characters" in parse('reason:"a\x07b"').errors[0]
    assert "at most 200 characters" in parse("reason:" + "x" * 201).errors[0]
    assert parse("refund").reasons == () and not parse("refund").has_filters


@pytest.mark.django_db
def test_reason_narrows_the_table_select_all_and_the_content_filter(
    empty_hermes, mock_endpoint, login
):
    seed_lineage(empty_hermes)
    empty_hermes.add("failed", at=300.0, title="Crashed run")
    empty_hermes.end("failed", "error", 310.0)
    sync.sync(mock_endpoint, full=True)
    page = queries.search(mock_endpoint, snapshot=0, reasons=("error",))
    assert [row["id"] for row in page.rows] == ["failed"] and page.total == 1
    both = queries.search(mock_endpoint, snapshot=0, reasons=("error", "branched"))
    assert {row["id"] for row in both.rows} == {"failed", "par"}
    assert resolve(mock_endpoint, {"all": "1", "q": "reason:error,compression"}).ids == [
        "failed",
        "root",
    ]
    where, params = content_search._filters(mock_endpoint, parse("word reason:error"))
    assert "m.session_id IN (" in where and "error" in params
    html = login("support").get("/e/local/sessions/", {"q": "reason:error"}).content.decode()
    assert "1 matching session." in html and "Crashed run" in html
    assert "Parent" not in html
