"""Transcript search against the real Hermes peer and its demo seed, built once
(the content index without a build: ``test_peer_content_states.py``)."""

import re

import pytest
from django.test import override_settings

from devtools.peer import demo_ids as ids
from hermes_ui.index import sync
from hermes_ui.index.models import ContentMessage, ContentSession, IndexedSession
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import content_search, listing
from hermes_ui.web.links import session_url
from tests.support.module_rows import module_transaction

pytestmark = [pytest.mark.django_db, pytest.mark.peer]


@pytest.fixture(scope="module")
def built_once(django_db_setup, django_db_blocker, hermes_peer):
    """The shared peer indexed with every transcript, once for the module
    (``tests/support/module_rows.py``): no test here changes the peer, and each starts
    from the index as the build left it."""
    endpoint = Endpoint("local", hermes_peer.base_url, hermes_peer.key)  # ``peer_endpoint``
    with module_transaction(django_db_blocker):
        seen = []
        with (
            django_db_blocker.unblock(),
            override_settings(HERMES_ENDPOINTS={"local": endpoint}, HERMES_ENDPOINT_ID="local"),
        ):
            report = sync.sync(endpoint, full=True, on_progress=seen.append)
        assert report.error_code == "" and report.content_reads >= 199
        steps = [p for p in seen if p["phase"] == "transcripts"]
        assert steps[-1]["done"] == steps[-1]["total"] == report.content_reads
        yield


@pytest.fixture
def built(built_once, peer_endpoint):
    return peer_endpoint


def search(client, q, **more):
    answer = client.get("/e/local/sessions/", {"q": q, **more})
    assert answer.status_code == 200, answer.content[:800]
    return answer.content.decode()


def hit_links(html):
    return re.findall(r'class="snippet-link" href="([^"]+)"', html)


def test_a_phrase_only_inside_a_message_is_found_with_its_snippet(built, login):
    # Message 2,400 of the long transcript; the title and preview say nothing like it.
    phrase = "Done with step 1200"
    assert not IndexedSession.objects.filter(title__icontains=phrase).exists()
    assert not IndexedSession.objects.filter(preview__icontains=phrase).exists()
    html = search(login("reviewer"), f'"{phrase}"')
    results = html.split('id="content-results"', 1)[1].split("</section>", 1)[0]
    assert ids.LONG_TITLE in results and "1 matching message in 1 transcript" in results
    assert "<mark>Done with step 1200</mark>. All tests green." in results
    assert 'id="content-complete"' in results  # the build finished: every transcript searched


def test_a_hit_in_message_2400_opens_the_page_anchored_on_it(built, login):
    client = login("support")
    [link] = hit_links(search(client, '"Done with step 1200"'))
    link = link.replace("&amp;", "&")
    message_id = int(link.rsplit("#msg-", 1)[1])
    last = ContentMessage.objects.filter(session_id=ids.LONG_SESSION).order_by("-message_id")[0]
    assert message_id == last.message_id  # the 2,400th message
    assert link.startswith(session_url("local", ids.LONG_SESSION, upto=message_id))
    page = client.get(link.split("#", 1)[0])
    assert page.status_code == 200
    html = page.content.decode()
    assert re.search(rf'class="msg role-assistant msg-focus" id="msg-{message_id}"', html)
    assert "Done with step 1200." in html
    assert "Step 1: next change, please." not in html  # only the chunk holding it
    assert 'id="earlier-messages"' in html and "Showing from message 2,301 of 2,400" in html


def test_hostile_message_content_is_escaped_in_snippets(built, login):
    html = search(login("support"), "onerror")
    results = html.split('id="content-results"', 1)[1].split("</section>", 1)[0]
    assert ids.XSS_TITLE_SESSION[:22] in results
    assert "<img src=x" not in results and "&lt;img src=x <mark>onerror</mark>" in results
    html = search(login("support"), '"rendered as text"')
    assert "<script>alert('answer')" not in html
    assert "&lt;script&gt;alert(&#x27;answer&#x27;)&lt;/script&gt;" in html


def test_a_compression_chain_is_one_result_showing_where_hermes_reads_it(built, login):
    tip = ContentSession.objects.get(session_id=ids.COMPRESSION_ROOT)
    assert tip.resolved_id == ids.COMPRESSION_TIP
    assert not ContentMessage.objects.filter(session_id=ids.COMPRESSION_ROOT).exists()
    word = ContentMessage.objects.filter(session_id=ids.COMPRESSION_TIP)[0].text.split()[0]
    html = search(login("support"), f"{word} kind:continuation")
    results = html.split('id="content-results"', 1)[1].split("</section>", 1)[0]
    assert results.count(f'title="{ids.COMPRESSION_TIP}"') == 1
    assert "Hermes reads this transcript for" in html and ids.COMPRESSION_ROOT[:21] in html


def test_filters_narrow_transcript_hits(built, login):
    client = login("support")
    html = search(client, '"step 1200" role:assistant source:cli')
    assert "Done with <mark>step 1200</mark>" in html and "<mark>Step 1200</mark>: next" not in html
    assert 'id="content-none"' in search(client, '"step 1200" role:tool')
    assert 'id="content-none"' in search(client, '"step 1200" source:telegram')
    assert 'id="content-none"' in search(client, '"step 1200" before:2000-01-01')
    bad = client.get("/e/local/sessions/", {"q": "refund open:maybe"})
    assert bad.status_code == 400 and "open: takes yes or no" in bad.content.decode()


def test_nothing_changed_means_no_transcript_is_read_again(built):
    again = sync.sync(built, full=False)
    assert again.list_calls == 1 and again.content_reads == 0 and again.get_calls == 0


def test_find_in_a_long_transcript_jumps_from_match_to_match(built, login):
    client = login("support")
    url = session_url("local", ids.LONG_SESSION)
    answer = client.get(url, {"find": "all tests green"})
    assert answer.status_code == 302 and "hit=1" in answer["Location"]
    first_id = int(answer["Location"].rsplit("#msg-", 1)[1])
    html = client.get(answer["Location"].split("#", 1)[0]).content.decode()
    assert "Match 1 of 24" in html and f'msg-focus" id="msg-{first_id}"' in html
    last = re.search(r'href="([^"]+)" id="find-previous"', html).group(1).replace("&amp;", "&")
    assert "hit=24" in last
    html = client.get(last.split("#", 1)[0]).content.decode()
    last_id = int(last.rsplit("#msg-", 1)[1])
    assert "Match 24 of 24" in html and f'msg-focus" id="msg-{last_id}"' in html
    assert "Done with step 1200. All tests green." in html  # message 2,400
    assert "Step 1: next change, please." not in html
    assert html.count('class="msg ') <= 100  # one chunk in the DOM, not 2,400 messages
    none = client.get(url, {"find": "no such words anywhere"}).content.decode()
    assert "No message holds" in none


def test_turning_content_off_drops_what_was_kept(built, settings):
    assert ContentMessage.objects.exists()
    settings.HERMES_INDEX_CONTENT = False
    report = sync.sync(built, full=False)
    assert report.content_dropped > 0 and not ContentMessage.objects.exists()


def test_a_common_word_ranks_the_newest_matches_and_pages_through_them(built, login, monkeypatch):
    # Ranking stops at a window of the most recently indexed matches (the page
    # says so); pages walk every transcript in it once.
    monkeypatch.setattr(content_search, "WINDOW", 40)
    monkeypatch.setattr(listing, "CONTENT_PAGE_SIZE", 3)
    client = login("support")
    html = search(client, "the")
    assert 'id="content-capped"' in html and "More than 40 messages match" in html
    total = int(re.search(r"in at least (\d+) transcripts", html).group(1))
    assert total > 3  # more than one page
    seen = []
    while True:
        results = html.split('id="content-results"', 1)[1].split("</section>", 1)[0]
        shown = re.findall(r'<li class="content-hit".*?<code title="([^"]+)"', results, re.S)
        assert 0 < len(shown) <= 3 and "at least" in results
        seen += shown
        more = re.search(r'aria-label="Transcript result pages"><a href="([^"]+)"', results)
        if not more:
            break
        answer = client.get(more.group(1).replace("&amp;", "&"))
        assert answer.status_code == 200
        html = answer.content.decode()
    assert len(seen) == len(set(seen)) == total


def test_the_title_table_of_a_word_search_loads_after_the_transcript_hits(built, login):
    client = login("support")
    # "trip planning" is in titles (the branch family) and in their transcripts.
    html = search(client, "trip planning")
    assert 'id="content-results"' in html
    region = html.split('id="title-matches"', 1)[1].split("</div>", 1)[0]
    table_url = "/e/local/sessions/?q=trip+planning&amp;table=on"
    assert 'hx-trigger="revealed"' in region and f'href="{table_url}"' in region
    assert 'id="bulk-form"' not in html and 'name="ids"' not in html
    # What htmx loads into the region: the table and its selection form, alone.
    lazy = client.get(table_url.replace("&amp;", "&"), HTTP_HX_REQUEST="true").content.decode()
    assert 'id="title-matches"' in lazy
    assert 'id="content-results"' not in lazy and "<html" not in lazy
    assert 'id="bulk-form"' in lazy and 'id="select-all-matching"' in lazy
    for session_id in (ids.BRANCH_PARENT, *ids.BRANCHES):
        assert f'name="ids" value="{session_id}"' in lazy
    # Without JavaScript the link shows the whole page with both parts.
    both = search(client, "trip planning", table="on")
    assert 'id="content-results"' in both and f'name="ids" value="{ids.BRANCH_PARENT}"' in both
    assert 'id="bulk-form"' in both and 'hx-trigger="revealed"' not in both
