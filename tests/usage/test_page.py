"""The usage page: range form, table, chart, CSV, the deleted bucket and hostile names."""

import csv
import io
import re
from datetime import date, timedelta
from html.parser import HTMLParser

import pytest

from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.usage import clock
from hermes_ui.usage.models import DayTotal

pytestmark = pytest.mark.django_db
TODAY = date(2026, 11, 30)
HOSTILE = '=HYPERLINK("http://x")<script>alert(1)</script>'


@pytest.fixture(autouse=True)
def today(monkeypatch):
    monkeypatch.setattr(clock, "today", lambda: TODAY)


def total(ep, day, source="cli", model="m1", *, history=False, deleted=False, **amounts):
    return DayTotal.objects.create(
        **ep.scope(),
        day=day,
        source=source,
        model=model,
        history=history,
        deleted=deleted,
        **amounts,
    )


class Table(HTMLParser):
    """The cells of ``#usage-table`` (head, body and foot rows), as text."""

    def __init__(self):
        super().__init__()
        self.rows, self.inside, self.cell = [], False, None

    def handle_starttag(self, tag, attrs):
        if tag == "table" and ("id", "usage-table") in attrs:
            self.inside = True
        elif self.inside and tag == "tr":
            self.rows.append([])
        elif self.inside and tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag == "table":
            self.inside = False
        elif self.inside and tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append(self.cell.strip())
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data


def table_of(html: str) -> list[list[str]]:
    parser = Table()
    parser.feed(html)
    return parser.rows


def test_the_page_is_a_table_by_day_and_source_with_history_and_deleted_rows(login, mock_endpoint):
    ep = mock_endpoint
    total(
        ep, TODAY - timedelta(days=3), input_tokens=100, output_tokens=10, estimated_cost_usd=0.25
    )
    total(ep, TODAY - timedelta(days=3), source="cron", input_tokens=7)
    total(ep, TODAY - timedelta(days=20), history=True, input_tokens=5000)
    total(ep, TODAY - timedelta(days=2), "", "", deleted=True, input_tokens=40)
    total(ep, TODAY - timedelta(days=40), input_tokens=999)  # out of the 30-day range
    answer = login("support").get("/e/local/usage/")
    assert answer.status_code == 200
    rows = table_of(answer.content.decode())
    assert rows[1:] == [
        ["2026-11-10", "cli", "history", "5000", "0", "0", "0", "0", "0.0000", "0.0000"],
        ["2026-11-27", "cli", "synced", "100", "10", "0", "0", "0", "0.2500", "0.0000"],
        ["2026-11-27", "cron", "synced", "7", "0", "0", "0", "0", "0.0000", "0.0000"],
        [
            "2026-11-28",
            "deleted sessions",
            "deleted sessions",
            "40",
            "0",
            "0",
            "0",
            "0",
            "0.0000",
            "0.0000",
        ],
        ["Total", "", "", "5147", "10", "0", "0", "0", "0.2500", "0.0000"],
    ]
    page = answer.content.decode()
    assert 'role="img"' in page and '<desc id="chart-desc">' in page
    assert page.count('fill="url(#hatch)"') >= 2  # the history bar and its legend swatch


def test_the_range_picker_and_grouping_by_model(login, mock_endpoint):
    ep = mock_endpoint
    total(ep, TODAY - timedelta(days=10), model="big", input_tokens=3)
    total(ep, TODAY - timedelta(days=2), model="small", input_tokens=4)
    week = table_of(login("support").get("/e/local/usage/?days=7&by=model").content.decode())
    assert [row[:2] for row in week[1:-1]] == [["2026-11-28", "small"]]
    custom = login("support").get("/e/local/usage/?start=2026-11-19&end=2026-11-21&by=model")
    assert [row[:2] for row in table_of(custom.content.decode())[1:-1]] == [["2026-11-20", "big"]]


@pytest.mark.parametrize(
    ("query", "message"),
    [
        ("start=2026-11-21&end=2026-11-19", "The “From” date is after the “To” date."),
        ("start=2025-01-01&end=2026-11-19", "Pick at most 366 days"),
        ("days=custom&start=2026-11-21", "need both a “From” and a “To” date"),
        ("start=2026-13-45&end=2026-11-19", "Enter a valid date."),
        ("days=9999", "Select a valid choice."),
        ("by=title", "Select a valid choice."),
    ],
)
def test_bad_ranges_get_a_clear_message_not_a_500(login, mock_endpoint, query, message):
    answer = login("support").get(f"/e/local/usage/?{query}")
    assert answer.status_code == 400
    assert message in answer.content.decode()
    assert 'id="usage-table"' not in answer.content.decode()


def test_csv_holds_the_same_cells_as_the_table(login, mock_endpoint):
    ep = mock_endpoint
    total(ep, TODAY - timedelta(days=1), input_tokens=12, actual_cost_usd=1.5)
    total(ep, TODAY - timedelta(days=5), history=True, output_tokens=9)
    total(ep, TODAY, "", "", deleted=True, history=True, reasoning_tokens=3)
    client = login("support")
    page = client.get("/e/local/usage/?days=7")
    download = client.get("/e/local/usage/?days=7&format=csv")
    assert download["Content-Type"].startswith("text/csv")
    assert "attachment" in download["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(download.content.decode())))
    table = table_of(page.content.decode())
    assert rows[1:-1] == table[1:-1]
    assert rows[-1][3:] == table[-1][3:] and rows[-1][0] == "total"
    assert rows[0][:3] == ["Day", "Source", "Kind"]


def test_hostile_source_and_model_names_are_escaped_in_page_svg_and_csv(login, mock_endpoint):
    ep = mock_endpoint
    total(ep, TODAY, source=HOSTILE, model=HOSTILE, input_tokens=10)
    client = login("support")
    for by in ("source", "model"):
        page = client.get(f"/e/local/usage/?by={by}").content.decode()
        assert "<script>alert(1)</script>" not in page
        svg = page[page.index("<svg") : page.index("</figure>")]
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg  # the bar's tooltip and legend
        rows = list(
            csv.reader(
                io.StringIO(client.get(f"/e/local/usage/?by={by}&format=csv").content.decode())
            )
        )
        assert rows[1][1] == "'" + HOSTILE  # a formula-leading cell is made inert


def test_the_page_lists_only_its_endpoint_and_admins_see_all(login, settings):
    local = Endpoint("local", "http://hermes.test", "k" * 24)
    other = Endpoint("other", "http://other.test", "k" * 24)
    settings.HERMES_ENDPOINTS = {"local": local, "other": other}
    settings.HERMES_ENDPOINT_ID = "local"
    total(local, TODAY, input_tokens=1)
    total(other, TODAY, input_tokens=2)
    total(other, TODAY, "", "", deleted=True, input_tokens=5)
    one = table_of(login("support").get("/e/local/usage/").content.decode())
    assert [row[3] for row in one[1:]] == ["1", "1"]
    assert login("support").get("/usage/").status_code == 403
    # The top bar's endpoint switch keeps the reader on the usage page.
    assert 'href="/e/other/usage/"' in login("support").get("/e/local/usage/").content.decode()
    everything = table_of(login("admin").get("/usage/").content.decode())
    assert [row[1:4] for row in everything[1:-1]] == [
        ["local", "synced", "1"],
        ["other", "synced", "2"],
        ["other: deleted sessions", "deleted sessions", "5"],
    ]


def test_an_empty_range_says_so(login, mock_endpoint):
    page = login("support").get("/e/local/usage/").content.decode()
    assert (
        'id="usage-empty"' in page
        and "<svg" not in page.split("<main", 1)[1].split("usage-form")[0]
    )


def test_the_nav_links_the_usage_page(login, mock_endpoint):
    page = login("support").get("/e/local/usage/").content.decode()
    assert re.search(r'<a href="/e/local/usage/" aria-current="page">Usage</a>', page)
