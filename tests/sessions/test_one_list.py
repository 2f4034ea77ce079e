"""One Sessions page: the index's list once it is built, Hermes' own list before or on request."""

import pytest

from hermes_ui.index import sync

pytestmark = pytest.mark.django_db

PAGE = "/e/local/sessions/"


@pytest.fixture
def listed_pair(empty_hermes):
    empty_hermes.add("alpha-1", at=100.0, title="Alpha talk")
    empty_hermes.add("beta-2", at=200.0, title="Beta talk", source="telegram")
    return empty_hermes


def _built(mock_endpoint):
    assert not sync.sync(mock_endpoint, full=True).error_code


def test_before_the_index_is_built_the_page_is_hermes_list_with_a_line_saying_so(
    listed_pair, login
):
    html = login("support").get(PAGE).content.decode()
    assert 'id="index-not-built"' in html and "still being built" in html
    assert "Alpha talk" in html and "Beta talk" in html  # Hermes' own rows
    assert "Not indexed yet." in html  # the freshness line, with its Refresh button
    assert 'id="index-filters"' not in html and "Rows 1\N{EN DASH}2" in html
    # Its own pages and filter say so too.
    cli = login("support").get(PAGE, {"offset": "0", "source": "cli"}).content.decode()
    assert 'id="index-not-built"' in cli and "Alpha talk" in cli


def test_once_the_index_is_built_the_page_is_the_search_of_it(listed_pair, mock_endpoint, login):
    _built(mock_endpoint)
    html = login("support").get(PAGE).content.decode()
    assert 'id="index-filters"' in html and 'action="/e/local/sessions/"' in html
    assert "2 matching sessions" in html and 'id="select-all-matching"' in html
    assert 'id="index-not-built"' not in html and 'id="goto-id"' in html
    assert 'href="/e/local/sessions/?offset=0" id="hermes-list-link"' in html
    found = login("support").get(PAGE, {"q": "beta", "table": "on"}).content.decode()
    assert "1 matching session" in found and "Alpha talk" not in found


def test_hermes_list_parameters_keep_hermes_own_list(listed_pair, mock_endpoint, login):
    _built(mock_endpoint)
    for query in ({"offset": "0"}, {"limit": "1"}, {"offset": "1", "source": "cli"}):
        html = login("support").get(PAGE, query).content.decode()
        assert 'id="index-filters"' not in html and "Rows " in html, query
        assert 'id="index-not-built"' not in html, query
    admin = login("admin").get(PAGE, {"children": "1"}).content.decode()
    assert "Administrative view" in admin
    # Its paging and its filter form stay on Hermes' list, the first page included.
    second = login("support").get(PAGE, {"limit": "1", "offset": "1"}).content.decode()
    assert 'href="/e/local/sessions/?offset=0&amp;limit=1" ' in second
    assert '<input type="hidden" name="offset" value="0">' in second


def test_search_parameters_search_the_index_even_before_it_is_built(listed_pair, login):
    html = login("support").get(PAGE, {"q": "alpha", "table": "on"}).content.decode()
    assert 'id="index-filters"' in html and 'id="index-not-built"' not in html
    assert "The index has not been built yet" in html


def test_the_old_search_address_redirects_with_its_query(listed_pair, login):
    support = login("support")
    moved = support.get("/e/local/index/?q=kind%3Aroot+x&view=all")
    assert moved.status_code == 302
    assert moved["Location"] == "/e/local/sessions/?q=kind%3Aroot+x&view=all"
    assert support.get("/e/local/index/")["Location"] == PAGE
    assert support.post("/e/local/index/").status_code == 405
    assert support.get("/e/nowhere/index/").status_code == 404


def test_the_top_bar_has_one_sessions_item(listed_pair, mock_endpoint, login):
    _built(mock_endpoint)
    for url in (PAGE, PAGE + "?offset=0"):
        nav = login("support").get(url).content.decode().split('class="topnav">', 1)[1]
        nav = nav.split("</nav>", 1)[0]
        assert 'href="/e/local/sessions/" aria-current="page">Sessions</a>' in nav, url
        assert ">Search<" not in nav and "index" not in nav, url


def test_the_first_index_ending_tells_hermes_list_that_search_is_ready(
    listed_pair, mock_endpoint, login
):
    """While the first index runs, Hermes' list polls its freshness line; the poll that
    sees it built swaps the banner (out of band) for a link to the search."""
    from django.utils import timezone

    from hermes_ui.index.models import IndexSyncState
    from hermes_ui.index.sync_state import state_for

    state_for(mock_endpoint)
    IndexSyncState.objects.update(running_since=timezone.now())
    support = login("support")
    html = support.get(PAGE).content.decode()
    assert "still being built" in html and "/e/local/index/status/?polling=1&amp;list=1" in html
    status = "/e/local/index/status/"
    running = support.get(status, {"polling": "1", "list": "1"}, HTTP_HX_REQUEST="true")
    assert "every 1s" in running.content.decode() and "list=1" in running.content.decode()
    assert 'id="index-not-built"' not in running.content.decode()

    IndexSyncState.objects.update(running_since=None)
    _built(mock_endpoint)
    done = support.get(status, {"polling": "1", "list": "1"}, HTTP_HX_REQUEST="true")
    body = done.content.decode()
    assert done["HX-Trigger"] == "index-refreshed"
    banner = body.split('id="index-not-built"', 1)[1].split("</p>", 1)[0]
    assert 'hx-swap-oob="true"' in banner and "is built" in banner
    assert 'href="/e/local/sessions/" id="index-built-link"' in banner
    # A search page's freshness line (no list=1) gets no banner.
    plain = support.get(status, {"polling": "1"}, HTTP_HX_REQUEST="true").content.decode()
    assert 'id="index-not-built"' not in plain
