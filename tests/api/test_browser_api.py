"""In Chromium: a token made on /account/tokens/ works against the API, and the browsable docs
render swagger-ui from the dashboard itself (no request leaves it) with no CSP violation."""

import re

import pytest

from tests.support.browser import log_in, screenshot, wait_for_js

pytestmark = [pytest.mark.browser, pytest.mark.peer]


def test_a_token_from_the_page_works_and_the_docs_load_locally(dashboard, page):
    requested = []
    page.on("request", lambda request: requested.append(request.url))
    log_in(page, dashboard.base_url, "reviewer")
    page.goto(dashboard.base_url + "/account/tokens/")
    page.fill("#id_name", "browser job")
    page.check("input[name=scope][value=write]")
    page.click("#new-token-form button[type=submit]")
    token = page.inner_text("#issued-token").strip()
    assert re.fullmatch(r"hui_[0-9a-f]{12}_[A-Za-z0-9_-]{43}", token)
    assert "browser job" in page.inner_text("#token-table")
    screenshot(page, "api-tokens")
    status = page.evaluate(
        """async (token) => {
            const headers = {Authorization: "Bearer " + token};
            const answer = await fetch("/api/v1/endpoints", {headers});
            const cookieOnly = await fetch("/api/v1/endpoints");
            return [answer.status, (await answer.json()).data[0].id, cookieOnly.status];
        }""",
        token,
    )
    assert status == [200, "local", 401]  # the token works; the browser's session does not
    page.goto(dashboard.base_url + "/api/v1/docs")
    wait_for_js(page, "document.querySelectorAll('.opblock').length >= 10")
    assert "Hermes UI API" in page.inner_text(".swagger-ui .info")
    screenshot(page, "api-docs")
    elsewhere = [url for url in requested if not url.startswith(dashboard.base_url)]
    assert elsewhere == []
