"""What lists or acts on sessions obeys the one rule (issue 48): search and its facets
and counts, transcript search, the Sessions page, the home page, saved views, bulk
actions, compare, exports and usage.

Two endpoints, each its own fake Hermes, indexed by the real sync: ``eu`` holds
an open session (source ``web``) and, for the source-limited person, a canary
of source ``zzcanarysrc``; ``us`` holds only canaries. Whoever may not see a
canary must find none of its title, id, source or message text on any page.
"""

from __future__ import annotations

import re

import httpx
import pytest
from django.test import Client
from django.urls import reverse

from hermes_ui.access import grants
from hermes_ui.hermes.client import use_transport
from hermes_ui.index import sync
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.saved_views.models import SavedView
from tests.conftest import TEST_KEY
from tests.support.fakes import FakeHermes

pytestmark = pytest.mark.django_db

AT = 1796300000.0
# Planted where the person may not look: titles, ids, a source and message text.
US_ID, US_TITLE, US_WORD = "us-canary-id-7q", "Usorchid canary title", "usmarmalade"
EU_ID, EU_TITLE, EU_WORD = "eu-canary-id-3k", "Eucobalt canary title", "eumarmalade"
EU_SOURCE = "zzcanarysrc"
EU_ROOT_ID = "eu-canary-root-9z"  # a root of the hidden source: in Hermes' own list
# What the limited people should see.
OPEN_ID, OPEN_TITLE, OPEN_WORD = "eu-open-id-1a", "Plain open title", "plainword"
CANARIES = (US_ID, US_TITLE, US_WORD, EU_ID, EU_TITLE, EU_WORD, EU_SOURCE, "usorchid", EU_ROOT_ID)
US_ONLY = (US_ID, US_TITLE, US_WORD, "usorchid")


def _said(fake: FakeHermes, session_id: str, text: str) -> None:
    fake.messages[session_id] = [
        {"id": 1, "session_id": session_id, "role": "user", "content": text, "timestamp": AT},
        {
            "id": 2,
            "session_id": session_id,
            "role": "assistant",
            "content": f"echo {text}",
            "timestamp": AT + 1,
        },
    ]


@pytest.fixture
def search_world(settings):
    """Both endpoints, their fakes behind one transport (by host), both indexed."""
    eu = Endpoint("eu", "http://eu.test", TEST_KEY)
    us = Endpoint("us", "http://us.test", TEST_KEY)
    settings.HERMES_ENDPOINTS = {"eu": eu, "us": us}
    settings.HERMES_ENDPOINT_ID = "us"  # the default endpoint is the hidden one
    settings.HERMES_INDEX_CONTENT = True
    fakes = {"eu.test": FakeHermes(), "us.test": FakeHermes()}
    counters = {"input_tokens": 1000, "output_tokens": 500, "model": "m-1"}
    fakes["eu.test"].add(OPEN_ID, at=AT, source="web", title=OPEN_TITLE, **counters)
    _said(fakes["eu.test"], OPEN_ID, f"a {OPEN_WORD} question")
    fakes["eu.test"].add(
        EU_ID, at=AT + 5, source=EU_SOURCE, title=EU_TITLE, parent=OPEN_ID, **counters
    )
    _said(fakes["eu.test"], EU_ID, f"a {EU_WORD} and {OPEN_WORD} secret")
    fakes["eu.test"].add(EU_ROOT_ID, at=AT + 9, source=EU_SOURCE, title="Eucobalt canary root")
    fakes["us.test"].add(US_ID, at=AT, source="web", title=US_TITLE, **counters)
    _said(fakes["us.test"], US_ID, f"a {US_WORD} and {OPEN_WORD} secret")

    def route(request: httpx.Request):
        return fakes[request.url.host](request)

    with use_transport(httpx.MockTransport(route)):
        sync.sync(eu, full=True)
        sync.sync(us, full=True)
        yield fakes


def _client(django_user_model, name: str, *grant_args) -> Client:
    user = django_user_model.objects.create_user(name, password="a-long-password-1")
    for endpoint, role, sources in grant_args:
        grants.grant(endpoint, role, sources, user=user)
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def eu_only(search_world, django_user_model):
    """Support on the whole of ``eu``; nothing on ``us``."""
    return _client(django_user_model, "eu-support", ("eu", "support", ()))


@pytest.fixture
def web_only(search_world, django_user_model):
    """Support on ``eu``'s ``web`` source only."""
    return _client(django_user_model, "eu-web", ("eu", "support", ["web"]))


@pytest.fixture
def star_admin(search_world, django_user_model):
    return _client(django_user_model, "star-admin", ("*", "admin", ()))


def _text(response) -> str:
    return response.content.decode()


def _clean(html: str, canaries=CANARIES) -> None:
    low = html.lower()
    found = [c for c in canaries if c.lower() in low]
    assert not found, f"canary text on the page: {found}"


def _clean_but_typed(html: str, typed: str, canaries) -> None:
    """``_clean`` of a page that echoes what the person typed (the search box): the
    typed text is taken out first, and canaries holding it are told by their other parts."""
    low = re.sub(re.escape(typed.lower()), "", html.lower())
    _clean(low, [c for c in canaries if typed.lower() not in c.lower()])


def _sessions(endpoint: str, **query) -> str:
    url = reverse("session_list", kwargs={"endpoint": endpoint})
    return url + ("?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else "")


# --- search, facets, counts, transcripts --------------------------------------------


def test_the_sessions_page_of_a_source_limited_person_lists_their_source_only(web_only):
    page = web_only.get(_sessions("eu"))
    assert page.status_code == 200
    html = _text(page)
    assert OPEN_TITLE in html and OPEN_ID in html
    _clean(html)
    # The source facet offers their source only, and the endpoint's totals are not shown.
    assert 'value="web"' in html and "3 sessions" not in html
    assert 'id="hermes-list-link"' not in html


def test_searching_a_hidden_title_source_or_word_finds_nothing(web_only, eu_only):
    extra = ("usorchid", "canary title")
    for client, canaries in ((web_only, (*CANARIES, *extra, "eucobalt")), (eu_only, US_ONLY)):
        for q in ("canary", "Usorchid", f"source:{EU_SOURCE}", US_WORD, "eumarmalade"):
            if client is eu_only and q in (f"source:{EU_SOURCE}", "eumarmalade"):
                continue  # eu-support sees the whole of eu: those are theirs
            page = client.get(_sessions("eu", q=q, table="on"))
            assert page.status_code == 200, q
            _clean_but_typed(_text(page), q, canaries)


def test_a_transcript_search_draws_no_snippet_of_a_hidden_session(web_only, star_admin):
    # The word is in the visible session and in both canaries' transcripts.
    html = _text(web_only.get(_sessions("eu", q=OPEN_WORD)))
    assert 'id="content-results"' in html and OPEN_TITLE in html
    _clean(html)
    assert re.search(r"2 matching messages in 1 transcript\b", html)
    # The admin on * finds both of eu's (the fast path filters nothing).
    admin = _text(star_admin.get(_sessions("eu", q=OPEN_WORD)))
    assert EU_TITLE in admin and OPEN_TITLE in admin


def test_the_sessions_page_of_a_source_limited_person_never_falls_back_to_hermes_list(
    web_only,
):
    # Hermes' own list cannot be filtered by source: its paging parameters answer the index.
    page = web_only.get(_sessions("eu", offset=0))
    assert page.status_code == 200
    _clean(_text(page))
    assert OPEN_TITLE in _text(page)


def test_an_admin_on_star_still_sees_every_session_and_count(star_admin):
    eu = _text(star_admin.get(_sessions("eu")))
    assert EU_TITLE in eu and OPEN_TITLE in eu and EU_SOURCE in eu and "3 sessions" in eu
    assert US_TITLE in _text(star_admin.get(_sessions("us")))


def test_the_hidden_endpoint_is_a_404_and_the_home_page_skips_it(eu_only, star_admin):
    assert eu_only.get(_sessions("us")).status_code == 404
    home = eu_only.get("/")
    assert home.status_code == 302 and home["Location"] == _sessions("eu")
    assert star_admin.get("/")["Location"] == _sessions("us")  # the configured default


# --- saved views ---------------------------------------------------------------------


def test_a_shared_view_naming_a_hidden_session_is_left_out(
    web_only, search_world, django_user_model
):
    author = django_user_model.objects.create_user("author", password="a-long-password-1")
    SavedView.objects.create(owner=author, name="Canary watch", q=f'"{EU_TITLE}"', shared=True)
    SavedView.objects.create(owner=author, name="By source", source=EU_SOURCE, shared=True)
    SavedView.objects.create(owner=author, name="Web chats", source="web", shared=True)
    page = web_only.get(_sessions("eu"))
    html = _text(page)
    assert "Web chats" in html
    assert "Canary watch" not in html and "By source" not in html
    _clean(html)
    # Opening a view of a hidden source shows only what they may see (nothing), never a canary.
    view = SavedView.objects.get(name="By source")
    opened = web_only.get(_sessions("eu", source=EU_SOURCE, view=f"view:{view.pk}"))
    assert opened.status_code in (200, 400)
    _clean_but_typed(_text(opened), EU_SOURCE, CANARIES)


# --- bulk, compare, export -------------------------------------------------------------


def test_a_bulk_action_on_a_hidden_id_is_refused_as_not_found(web_only):
    url = reverse("bulk_close", kwargs={"endpoint": "eu"})
    refused = web_only.post(url, {"ids": [OPEN_ID, EU_ID]})
    assert refused.status_code == 400
    html = _text(refused)
    assert "One selected session was not found" in html
    _clean(html)
    assert OPEN_ID not in html  # nothing of the selection is shown either
    # "Select all matching" resolves on the server to visible sessions only.
    everything = _text(web_only.post(url, {"all": "1"}))
    assert OPEN_ID in everything
    _clean(everything)


def test_a_bulk_action_of_an_admin_on_star_keeps_every_id(star_admin):
    url = reverse("bulk_close", kwargs={"endpoint": "eu"})
    page = star_admin.post(url, {"ids": [OPEN_ID, EU_ID]})
    assert page.status_code == 200 and EU_TITLE in _text(page)


def test_compare_with_a_hidden_session_is_the_404_of_a_missing_one(web_only, search_world):
    url = reverse("compare", kwargs={"endpoint": "eu"})
    hidden = web_only.get(url, {"a": OPEN_ID, "b": EU_ID})
    missing = web_only.get(url, {"a": OPEN_ID, "b": "no-such-session"})
    assert hidden.status_code == missing.status_code == 404
    _clean(_text(hidden).replace(EU_ID, ""))  # only the id they typed comes back
    assert EU_TITLE not in _text(hidden) and EU_WORD not in _text(hidden)


def test_a_lineage_export_leaves_out_members_of_a_hidden_source(web_only, star_admin):
    url = reverse("session_export", kwargs={"endpoint": "eu", "session_id": OPEN_ID})
    mine = web_only.get(url, {"format": "json", "lineage": "1", "redact": "1"})
    assert mine.status_code == 200
    body = b"".join(mine.streaming_content).decode()
    assert OPEN_WORD in body
    _clean(body)
    full = star_admin.get(url, {"format": "json", "lineage": "1"})
    assert EU_WORD in b"".join(full.streaming_content).decode()


def test_an_export_stops_when_the_grant_goes_while_it_streams(web_only, django_user_model):
    url = reverse("session_export", kwargs={"endpoint": "eu", "session_id": OPEN_ID})
    response = web_only.get(url, {"format": "json", "redact": "1"})
    assert response.status_code == 200
    grants.revoke("eu", user=django_user_model.objects.get(username="eu-web"))
    body = b"".join(response.streaming_content).decode()
    assert OPEN_WORD not in body  # nothing read after the grant went


def test_exporting_a_hidden_session_is_a_404(web_only):
    url = reverse("session_export", kwargs={"endpoint": "eu", "session_id": EU_ID})
    assert web_only.get(url, {"format": "json", "redact": "1"}).status_code == 404


# --- usage -----------------------------------------------------------------------------


def test_usage_counts_only_visible_sources_and_endpoints(web_only, eu_only, star_admin):
    url = reverse("usage", kwargs={"endpoint": "eu"})
    query = {"days": "90", "by": "source", "format": "csv"}
    limited = _text(web_only.get(url, query))
    assert "web" in limited
    _clean(limited)
    admin = _text(star_admin.get(url, query))
    assert EU_SOURCE in admin
    assert eu_only.get(reverse("usage", kwargs={"endpoint": "us"}), query).status_code == 404
    page = _text(web_only.get(url, {k: v for k, v in query.items() if k != "format"}))
    assert 'id="usage-partial"' in page
    _clean(page)


def test_the_usage_api_counts_only_visible_sources(web_only, django_user_model):
    from hermes_ui.api_tokens import tokens

    _, plain = tokens.issue(django_user_model.objects.get(username="eu-web"), "usage")
    api = Client(headers={"Authorization": f"Bearer {plain}"})
    answer = api.get("/api/v1/e/eu/usage", {"days": "90", "by": "source"})
    assert answer.status_code == 200
    assert "web" in _text(answer)
    _clean(_text(answer))
    assert api.get("/api/v1/e/us/usage", {"days": "90"}).status_code == 404


def test_a_search_dataset_holds_only_visible_sessions(web_only, star_admin):
    url = reverse("review_dataset_search", kwargs={"endpoint": "eu"})
    query = {"q": "canary", "format": "jsonl", "per": "session", "redact": "1"}
    mine = web_only.get(url, query)
    assert mine.status_code == 200
    _clean(b"".join(mine.streaming_content).decode())
    theirs = star_admin.get(url, query)
    assert EU_ID in b"".join(theirs.streaming_content).decode()


def test_a_bulk_close_sends_nothing_for_a_session_whose_grant_went(search_world, django_user_model):
    from django.conf import settings

    from hermes_ui.bulk import close

    user = django_user_model.objects.create_user("leaver", password="a-long-password-1")
    grants.grant("eu", "support", ["web"], user=user)
    grants.revoke("eu", user=user)  # between the confirming POST and the job's run
    eu = settings.HERMES_ENDPOINTS["eu"]
    (row,) = close.close_each(eu, user, [OPEN_ID], "resolved", "k" * 22)
    assert (row.verdict, row.code) == (close.FAILED, "not_found")
    assert search_world["eu.test"].rows[OPEN_ID]["end_reason"] is None
    assert not [r for r in search_world["eu.test"].requests if r.method == "PATCH"]
