"""In Debian's Chromium: the session page's layout at a laptop and a phone size, its
side panels and keys, and "Latest" on a long transcript (the figures are printed;
``manage.py bench --only session`` measures them on a 3,000-message session)."""

import time

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.web.links import session_url
from tests.support.browser import ARTIFACTS, wait_for_js, watched_context

pytestmark = [pytest.mark.browser, pytest.mark.peer]

SIZES = {"wide": (1366, 768), "phone": (390, 844)}
# Elements per rendered message, the whole document counted (the page's chrome included).
MAX_ELEMENTS_PER_MESSAGE = 8


def _first_message_in_view(page) -> dict:
    return page.evaluate(
        "(() => { const m = document.querySelector('#messages article.msg');"
        " const r = m.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, height: innerHeight, width: innerWidth,"
        " scrollX: document.documentElement.scrollWidth}; })()"
    )


@pytest.mark.parametrize("size", SIZES)
def test_the_first_message_is_in_view_without_scrolling(
    chromium, dashboard, dashboard_logins, size
):
    width, height = SIZES[size]
    context = watched_context(chromium, viewport={"width": width, "height": height})
    page = context.new_page()
    dashboard_logins.sign_in(page, "reviewer")
    page.goto(dashboard.base_url + session_url("local", ids.TOOL_SESSION))
    page.wait_for_selector("#messages article.msg")
    box = _first_message_in_view(page)
    # The first message starts within the first screen, with its head and some text.
    assert box["top"] + 60 < box["height"], box
    assert box["scrollX"] <= width + 1, box  # nothing wider than the screen
    # The side panels are closed summaries; the note box is not on the first screen.
    assert page.locator("details.side-panel[open]").count() == 0
    assert not page.locator("#notes textarea").is_visible()
    # The first screen, as docs/images/session-page-*.png shows it (optimised copies).
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"session-page-{size}.png"))
    context.close()
    assert context.csp_violations == []


def test_side_panels_open_in_place_by_click_key_and_link(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "reviewer")
    url = dashboard.base_url + session_url("local", ids.TOOL_SESSION)
    page.goto(url)
    page.wait_for_selector("#messages article.msg")
    # Every key the panels take is listed on the page.
    keys = page.locator("#session-keys").text_content()
    for key in ("j", "k", "End", "t", "o", "i", "l"):
        assert f"{key}" in keys
    page.click("#panel-tags > summary")
    assert page.locator("#session-tags").is_visible()
    page.keyboard.press("o")  # notes
    assert page.locator("#notes textarea").is_visible()
    page.keyboard.press("o")
    assert not page.locator("#notes textarea").is_visible()
    assert page.locator("#lineage-totals").count() == 0  # not loaded while closed
    page.keyboard.press("l")  # the lineage panel loads once opened
    page.locator("#lineage-panel #lineage-totals").wait_for()
    # A link to a region inside a closed panel opens it.
    page.goto(url + "#notes")
    wait_for_js(page, "document.querySelector('#panel-notes').open")


def test_j_and_k_move_between_messages(page, dashboard, dashboard_logins):
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", ids.TOOL_SESSION))
    page.wait_for_selector("#messages article.msg")
    page.keyboard.press("j")
    page.keyboard.press("j")
    second = page.evaluate("document.querySelectorAll('#messages article.msg')[1].id")
    assert page.evaluate("document.querySelector('article.msg.kb-focus').id") == second
    page.keyboard.press("k")
    first = page.evaluate("document.querySelectorAll('#messages article.msg')[0].id")
    assert page.evaluate("document.querySelector('article.msg.kb-focus').id") == first


@pytest.mark.parametrize("how", ["link", "End key"])
def test_latest_opens_the_last_window_directly(page, dashboard, dashboard_logins, how):
    dashboard_logins.sign_in(page, "support")
    page.goto(dashboard.base_url + session_url("local", ids.LONG_SESSION))
    page.wait_for_selector("#messages article.msg")
    last = page.get_attribute("#transcript-latest", "href").split("#", 1)[1]
    loads = []
    page.on("request", lambda r: loads.append(r.url) if "/messages/" in r.url else None)
    started = time.perf_counter()
    if how == "link":
        page.click("#transcript-latest")
    else:
        page.keyboard.press("End")
    page.wait_for_url("**at=latest**")
    wait_for_js(
        page,
        f"(() => {{ const m = document.getElementById('{last}'); if (!m) return false;"
        " const r = m.getBoundingClientRect(); return r.top < innerHeight && r.bottom > 0; })()",
    )
    took = time.perf_counter() - started
    assert loads == []  # no chain of earlier windows
    shown = page.locator("#messages article.msg").count()
    # The last message of the page is the transcript's last: the window is the latest.
    assert page.evaluate("[...document.querySelectorAll('#messages article.msg')].pop().id") == last
    assert page.locator("#messages .load-more").count() == 0
    elements = page.evaluate("document.getElementsByTagName('*').length")
    assert shown == 100
    assert elements / shown <= MAX_ELEMENTS_PER_MESSAGE, (elements, shown)
    assert page.locator("#earlier-messages").count() == 1
    print(
        f"\nLatest by {how}: last message in view {took * 1000:.0f} ms after the click; "
        f"{elements} elements for {shown} messages ({elements / shown:.1f} per message)"
    )
