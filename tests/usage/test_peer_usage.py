"""Usage booking, lineage totals and erasure against the real Hermes peer."""

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.test import override_settings

from devtools.peer import demo_ids as ids
from hermes_ui.deletion.models import Status
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.lineage import picture
from hermes_ui.usage import clock
from hermes_ui.usage.models import Booking, DayTotal
from hermes_ui.web.links import session_url
from tests.deletion.helpers import decide, execute, refresh, request_deletion
from tests.support.peers import make, read
from tests.usage.test_page import table_of

pytestmark = [pytest.mark.peer, pytest.mark.django_db(transaction=True)]
REAL_TODAY = datetime.now(UTC).date()
# Booking days far from any session's start day, so the two cannot be confused.
DAY1, DAY2 = REAL_TODAY + timedelta(days=40), REAL_TODAY + timedelta(days=41)


def on(monkeypatch, day):
    monkeypatch.setattr(clock, "today", lambda: day)


def full_sync(ep):
    """A full sync that reads no transcript (``HERMES_INDEX_CONTENT`` off): usage comes
    from the session list, and reading every seeded transcript was most of each sync."""
    with override_settings(HERMES_INDEX_CONTENT=False):
        report = sync.sync(ep, full=True)
    assert not report.error_code, report.error_code
    return report


def test_a_chat_turn_between_two_syncs_is_booked_on_the_second_syncs_day(
    usage_endpoint, monkeypatch, login
):
    ep = usage_endpoint
    sid = f"usage-turn-{uuid.uuid4().hex[:8]}"
    before = make(ep, sid)
    on(monkeypatch, DAY1)
    full_sync(ep)
    assert not Booking.objects.filter(session_id=sid).exists()  # created with zero counters
    client = HermesClient(ep)
    try:
        client.chat(sid, message="How many tokens is this?")
    finally:
        client.close()
    after = read(ep, sid)
    assert after.input_tokens > (before.input_tokens or 0) and after.output_tokens > 0
    on(monkeypatch, DAY2)
    full_sync(ep)
    booked = list(Booking.objects.filter(session_id=sid))
    assert [(b.day, b.history) for b in booked] == [(DAY2, False)]
    assert (booked[0].input_tokens, booked[0].output_tokens) == (
        after.input_tokens - (before.input_tokens or 0),
        after.output_tokens - (before.output_tokens or 0),
    )
    start_day = datetime.fromtimestamp(after.started_at, UTC).date()
    assert start_day != DAY2
    assert not Booking.objects.filter(session_id=sid, day=start_day).exists()
    # The page shows the turn on DAY2, as a synced (not history) amount.
    shown = table_of(
        login("support").get(f"/e/local/usage/?start={DAY2}&end={DAY2}&by=source").content.decode()
    )
    assert any(row[0] == str(DAY2) and row[2] == "synced" for row in shown[1:-1])


def test_a_first_sync_books_history_on_each_sessions_start_day_marked_as_such(
    usage_endpoint, monkeypatch, login
):
    ep = usage_endpoint
    on(monkeypatch, DAY1)
    full_sync(ep)
    root = read(ep, ids.COMPRESSION_ROOT)
    start_day = datetime.fromtimestamp(root.started_at, UTC).date()
    booked = Booking.objects.get(session_id=ids.COMPRESSION_ROOT)
    assert (booked.day, booked.history) == (start_day, True)
    assert (booked.input_tokens, booked.output_tokens) == (root.input_tokens, root.output_tokens)
    assert booked.estimated_cost_usd == pytest.approx(root.estimated_cost_usd)
    page = login("support").get(f"/e/local/usage/?start={start_day}&end={start_day}")
    rows = table_of(page.content.decode())
    history = [row for row in rows[1:-1] if row[1] == root.source]
    assert history and all(row[2] == "history" for row in history)
    assert int(history[0][3]) >= root.input_tokens
    assert 'fill="url(#hatch)"' in page.content.decode()
    # A second sync with nothing changed books nothing more.
    count = Booking.objects.count()
    on(monkeypatch, DAY2)
    full_sync(ep)
    assert Booking.objects.count() == count


def _api_rows(ep, session_ids):
    return [read(ep, sid).as_row() for sid in session_ids]


def test_lineage_totals_equal_the_sum_over_the_seeded_tree(usage_endpoint, login):
    ep = usage_endpoint
    full_sync(ep)
    tree_ids = (
        ids.DELEGATE_PARENT,
        *ids.DELEGATE_CHILDREN,
        ids.DELEGATE_GRANDCHILD,
        ids.DELEGATE_BRANCH,
    )
    rows = {row["id"]: row for row in _api_rows(ep, tree_ids)}
    shown = picture.for_session(ep, ids.DELEGATE_PARENT, live=False, draw=False)
    assert shown.tree_total.sessions == 5
    for name in ("input_tokens", "output_tokens", "reasoning_tokens"):
        assert getattr(shown.tree_total, name) == sum(r[name] or 0 for r in rows.values()), name
    assert shown.tree_total.estimated_cost_usd == pytest.approx(
        sum(r["estimated_cost_usd"] or 0 for r in rows.values())
    )
    assert shown.tree_total.input_tokens > 0
    # A subtree: the first delegate and the grandchild it delegated to.
    child = next(n for n in shown.display.nodes() if n.id == ids.DELEGATE_CHILD_1)
    sub = child.row["usage"]
    assert sub.sessions == 2
    assert sub.input_tokens == sum(
        rows[i]["input_tokens"] for i in (ids.DELEGATE_CHILD_1, ids.DELEGATE_GRANDCHILD)
    )
    # The page says it: the whole tree, and each subtree in the graph's tooltips and the list.
    page = login("support").get(session_url("local", ids.DELEGATE_PARENT, "lineage_page"))
    html = page.content.decode()
    assert shown.tree_total.describe() in html
    assert f"Subtree: {sub.describe()}" in html  # the child's tooltip (and list entry title)


def test_the_session_page_panel_shows_its_compression_chains_total(usage_endpoint, login):
    ep = usage_endpoint
    full_sync(ep)
    chain = _api_rows(ep, ids.COMPRESSION_CHAIN)
    expected_in = sum(row["input_tokens"] for row in chain)
    panel = login("support").get(session_url("local", ids.COMPRESSION_TIP, "lineage_panel"))
    html = panel.content.decode()
    assert 'id="chain-total"' in html and "3 sessions, root to tip" in html
    assert f"{expected_in:,} in" in html


def test_hostile_titles_stay_escaped_in_the_lineage_with_totals(usage_endpoint, login):
    ep = usage_endpoint
    full_sync(ep)
    page = login("support").get(session_url("local", ids.XSS_TITLE_SESSION, "lineage_page"))
    assert "<script>alert(1)</script>" not in page.content.decode()


def test_deletion_erases_usage_rows_and_keeps_the_amounts_in_the_deleted_bucket(
    usage_endpoint, monkeypatch, login
):
    ep = usage_endpoint
    sid = f"usage-gone-{uuid.uuid4().hex[:8]}"
    make(ep, sid, chat=True)
    on(monkeypatch, DAY1)
    full_sync(ep)
    booked = list(Booking.objects.filter(session_id=sid))
    assert booked and booked[0].history
    tokens = sum(b.input_tokens for b in booked)
    bucket_before = sum(
        t.input_tokens for t in DayTotal.objects.filter(deleted=True, day=booked[0].day)
    )
    case = request_deletion(login("support"), sid, "The user asked for erasure")
    assert decide(login("admin"), case.pk).status_code == 302
    assert execute(login("admin2"), case.pk).status_code == 302
    case = refresh(case)
    assert case.status == Status.EXECUTED
    assert case.result["erased"]["usage_bookings"] == len(booked)
    assert not Booking.objects.filter(session_id=sid).exists()
    bucket = DayTotal.objects.filter(deleted=True, day=booked[0].day)
    assert sum(t.input_tokens for t in bucket) == bucket_before + tokens
    assert all(t.source == "" and t.model == "" for t in bucket)


def test_a_folded_delegate_fan_out_carries_the_total_of_what_it_hides(
    usage_endpoint, login, settings
):
    ep = usage_endpoint
    full_sync(ep)
    settings.HERMES_LINEAGE_FOLD_DELEGATES = 1  # the parent's two delegates fold
    hidden = _api_rows(ep, (*ids.DELEGATE_CHILDREN, ids.DELEGATE_GRANDCHILD))
    shown = picture.for_session(ep, ids.DELEGATE_PARENT, live=False, draw=False)
    [group] = shown.display.groups
    expected_in = sum(row["input_tokens"] for row in hidden)
    assert group.usage_text.startswith(f"Folded: 3 sessions: {expected_in:,} in")
    listed = login("support").get(
        session_url("local", ids.DELEGATE_PARENT, "lineage_page") + "?as=list"
    )
    assert group.usage_text in listed.content.decode()
    drawn = login("support").get(session_url("local", ids.DELEGATE_PARENT, "lineage_page"))
    html = drawn.content.decode()
    start = html.index('<div class="svg-wrap"')
    svg = html[start : html.index("</svg>", start)]
    assert group.usage_text in svg  # the group box's tooltip
