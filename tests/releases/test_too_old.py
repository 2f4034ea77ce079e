"""hermes-agent 0.13.0 has no session API: every page says so in one sentence, with a
link to the endpoints page; no 502, no "bad_request", no "Press Refresh", no chat form."""

import re

import pytest
from django.urls import reverse

from hermes_ui.endpoint_status import rounds, session_api
from hermes_ui.web.links import session_url
from tests.support.peers import endpoint_for

pytestmark = [pytest.mark.django_db, pytest.mark.peer, pytest.mark.release]

SENTENCE = re.compile(
    r"Hermes at <code>http://127\.0\.0\.1:\d+</code> has no session API</strong> "
    r"\(it needs hermes-agent 0\.15 or newer; it reports no version, so it is older than 0\.16\)"
)
SID = "20261103_110000_7d3a9e01"


def assert_names_the_cause(answer, url):
    html = answer.content.decode()
    # 200 for pages that need no session (the deletion queue), 503 for those that do.
    assert answer.status_code in (200, 503), (url, answer.status_code)
    assert "bad_request" not in html, url
    assert "Press Refresh" not in html, url
    assert SENTENCE.search(html), (url, answer.status_code, html[:3000])
    assert f'href="{reverse("endpoint_list")}"' in html, url
    assert 'name="message"' not in html, url  # no chat form
    return html


def top_bar_urls(html: str) -> list[str]:
    nav = html.split('class="topnav">', 1)[1].split("</nav>", 1)[0]
    return re.findall(r'href="([^"]+)"', nav)


def test_a_page_that_meets_the_plain_404_names_the_cause(too_old_peer, settings, login):
    """Before any probe: the session list gets the plain 404 itself and asks the probe."""
    endpoint = endpoint_for(settings, too_old_peer)
    admin = login("admin")
    answer = admin.get(reverse("session_list", kwargs={"endpoint": "local"}))
    assert answer.status_code == 503
    assert_names_the_cause(answer, "session list")
    # The probe recorded it: the next page is answered before asking Hermes.
    assert session_api.absent(endpoint) is not None


def test_every_top_bar_page_and_a_session_page(too_old_peer, settings, login):
    endpoint_for(settings, too_old_peer)
    found = rounds.probe_quietly()  # what the refresher does at start-up and each round
    assert [p.no_session_api for p in found] == [True]
    admin = login("admin")
    home = admin.get("/", follow=True)
    html = assert_names_the_cause(home, "/")
    urls = top_bar_urls(html)
    assert len(urls) >= 8, urls
    pages = [
        *urls,
        session_url("local", SID),
        session_url("local", SID, "lineage_page"),
        session_url("local", SID, "session_chat"),
        reverse("session_create", kwargs={"endpoint": "local"}),
        reverse("deletion_new", kwargs={"endpoint": "local"}) + f"?session={SID}",
    ]
    for url in pages:
        assert_names_the_cause(admin.get(url), url)
    # A POST of an endpoint page too: the create form never reaches Hermes.
    made = admin.post(
        reverse("session_create", kwargs={"endpoint": "local"}), {"session_id": "x", "title": "t"}
    )
    assert made.status_code == 503
    assert_names_the_cause(made, "create POST")
    endpoints_page = admin.get(reverse("endpoint_list")).content.decode()
    assert "lists none of the nine session operations" in endpoints_page
    assert "before 0.16 (no version reported)" in endpoints_page


def test_the_run_banner_names_the_cause(too_old_peer, settings):
    from devtools.management.commands.demo import no_session_api_note

    endpoint = endpoint_for(settings, too_old_peer)
    note = no_session_api_note(endpoint, "http://127.0.0.1:8000/")
    assert note == (
        f"Hermes at {too_old_peer.base_url} has no session API (it needs hermes-agent 0.15 or "
        "newer; it reports no version, so it is older than 0.16). "
        "See http://127.0.0.1:8000/endpoints/"
    )
