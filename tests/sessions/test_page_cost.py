"""The session page's cost: queries that do not grow with the transcript, the two
Hermes reads at once, the transcript cached once per change, the watermark after the
answer."""

import threading

import httpx
import pytest
from django.core.cache import cache
from django.core.signals import request_finished
from django.db import close_old_connections, connection
from django.test.utils import CaptureQueriesContext

from hermes_ui.hermes import bulkhead
from hermes_ui.hermes.client import use_transport
from hermes_ui.review import notes
from hermes_ui.review.models import Item, Queue
from hermes_ui.sessions import cache as transcripts
from hermes_ui.tags.models import SessionTag, Tag
from hermes_ui.watermarks.models import Watermark
from hermes_ui.web.links import session_url
from tests.review.core_helpers import default_rubric

SHORT, LONG = "cost-short", "cost-long"
# The side panels sessions/detail.html lists, in its order.
PANELS = ("facts", "tags", "notes", "review", "lineage", "compare", "export")


@pytest.fixture
def two_sessions(empty_hermes, users, mock_endpoint, settings):
    """A 10- and a 300-message session, each with notes, tags and a review item,
    drawn whole (one window holds 500 messages): every message is on the page."""
    settings.HERMES_MESSAGES_PAGE_SIZE = 500
    tag = Tag.objects.create(name="cost")
    queue = Queue.objects.create(
        **mock_endpoint.scope(),
        name="cost",
        rubric=default_rubric(),
        owner=users["admin"],
    )
    for sid, count in ((SHORT, 10), (LONG, 300)):
        empty_hermes.add(sid, title=sid, message_count=count)
        SessionTag.objects.create(**mock_endpoint.scope(), session_id=sid, tag=tag)
        Item.objects.create(**mock_endpoint.scope(), queue=queue, session_id=sid)
        notes.add(mock_endpoint, users["reviewer"], sid, None, "on the session")
        for mid in range(2, count + 1, 3):  # a note on every third message
            notes.add(mock_endpoint, users["reviewer"], sid, mid, f"note {mid}")
    return empty_hermes


def _count(client, url) -> tuple[int, str]:
    client.get(url)  # warm what is read once per process (roles, sessions, templates)
    with CaptureQueriesContext(connection) as captured:
        answer = client.get(url)
    assert answer.status_code == 200
    return len(captured), answer.content.decode()


@pytest.mark.parametrize("role", ["support", "reviewer", "admin"])
@pytest.mark.parametrize("where", [{}, {"at": "latest"}])
def test_no_panel_asks_the_database_per_message(login, two_sessions, role, where):
    client = login(role)
    short, short_page = _count(client, session_url("local", SHORT, **where))
    long, long_page = _count(client, session_url("local", LONG, **where))
    assert short_page.count('<article class="msg ') == 10
    assert long_page.count('<article class="msg ') == 300
    # Every side panel is on both pages (a panel that went missing costs nothing).
    for name in PANELS:
        assert f'id="panel-{name}"' in short_page and f'id="panel-{name}"' in long_page
    assert short == long, (short, long)


def test_a_chunk_asks_the_database_the_same_for_any_length(login, two_sessions, settings):
    settings.HERMES_MESSAGES_PAGE_SIZE = 5
    client = login("reviewer")
    counts = []
    for sid in (SHORT, LONG):
        client.get(session_url("local", sid))
        counts.append(_count(client, session_url("local", sid, "session_messages", after=5))[0])
    assert counts[0] == counts[1], counts


def test_the_two_hermes_reads_are_in_flight_at_once(login, empty_hermes, settings):
    # One bulkhead slot: the messages read rides on the page's (a page is one thread).
    settings.HERMES_BULKHEAD = 1
    bulkhead.reset_all()
    empty_hermes.add("both", title="both")
    inside, most, lock = [0], [0], threading.Lock()
    both_in = threading.Barrier(2, timeout=5)
    answer = empty_hermes.__call__

    def slow(request):
        with lock:
            inside[0] += 1
            most[0] = max(most[0], inside[0])
        try:
            both_in.wait()  # each read waits for the other: in turn, this would time out
        except threading.BrokenBarrierError:
            pass
        finally:
            with lock:
                inside[0] -= 1
        return answer(request)

    with use_transport(httpx.MockTransport(slow)):
        shown = login("support").get(session_url("local", "both"))
    assert shown.status_code == 200
    assert most[0] == 2


def test_a_failed_messages_read_after_the_panels_is_the_page_error(login, empty_hermes):
    """The panels are drawn before the transcript arrives; its read failing then is the
    page's error, as before, never a half-drawn page or a 500."""
    empty_hermes.add("broken", title="broken", message_count=4)
    answer = empty_hermes.__call__

    def messages_fail(request):
        if request.url.path.endswith("/messages"):
            return httpx.Response(503, json={"error": {"code": "unavailable", "message": "x"}})
        return answer(request)

    with use_transport(httpx.MockTransport(messages_fail)):
        shown = login("support").get(session_url("local", "broken"))
    assert shown.status_code in (502, 503)
    page = shown.content.decode()
    assert 'id="session-side"' not in page and '<article class="msg ' not in page


def test_a_failed_row_read_is_the_page_error_even_when_messages_answer(login, empty_hermes):
    # Only the messages of "gone" are there: the row read fails, and the page says so.
    empty_hermes.messages["gone"] = []
    answer = login("support").get(session_url("local", "gone"))
    assert answer.status_code == 404


def test_the_transcript_is_cached_once_per_change(login, empty_hermes, mock_endpoint):
    empty_hermes.add("cached", title="cached", message_count=4)
    client = login("support")
    writes = []
    real_set_many = cache.set_many

    def counting(data, *args, **kwargs):
        writes.append(sorted(data))
        return real_set_many(data, *args, **kwargs)

    cache.set_many = counting
    try:
        for _ in range(3):
            assert client.get(session_url("local", "cached")).status_code == 200
        assert len(writes) == 1  # the first view wrote it; the next two only read its version
        empty_hermes.chat("cached")  # a turn lands: the transcript changed
        assert client.get(session_url("local", "cached")).status_code == 200
        assert len(writes) == 2
    finally:
        cache.set_many = real_set_many
    key = transcripts.transcript_cache_key(mock_endpoint, "cached")
    assert len(cache.get(key)["data"]) == 6


def test_the_watermark_is_written_after_the_page_is_rendered(login, empty_hermes, users):
    """The upsert runs when the response is closed (after the body is sent), not in the view."""
    from django.test import RequestFactory

    from hermes_ui.sessions.views.detail import session_detail

    empty_hermes.add("seen", title="seen", message_count=4)
    request = RequestFactory().get(session_url("local", "seen"))
    request.user = users["support"]
    request.htmx = False
    response = session_detail(request, "local", "seen")
    assert response.status_code == 200
    assert not Watermark.objects.filter(session_id="seen").exists()
    # What the server does once the answer is sent (as Django's test client does it:
    # without closing the test's database connection).
    request_finished.disconnect(close_old_connections)
    try:
        response.close()
    finally:
        request_finished.connect(close_old_connections)
    assert Watermark.objects.get(session_id="seen").message_count == 4


def test_the_stored_probe_answers_the_chat_box(login, empty_hermes, mock_endpoint):
    """The session-API gate, the layout's banner and the chat box's capability questions
    all read the stored probe (each its own compiled query: the per-request memo went,
    docs/development/benchmarks.md)."""
    from hermes_ui.endpoint_status import probes
    from hermes_ui.hermes.contract import CONTRACT_OPERATIONS, STREAMING

    empty_hermes.add("probed", title="probed", message_count=2)
    found = probes.Probe(endpoint=mock_endpoint, reachable=True)
    found.key_accepted, found.operations = True, list(CONTRACT_OPERATIONS)
    found.features = {STREAMING: False}
    probes.store(found)
    client = login("support")
    client.get(session_url("local", "probed"))
    with CaptureQueriesContext(connection) as captured:
        page = client.get(session_url("local", "probed")).content.decode()
    reads = [q["sql"] for q in captured if "endpoint_status_endpointprobe" in q["sql"]]
    assert reads, reads
    # The stored "no streaming" reaches the chat box.
    assert 'id="chat-unsupported"' in page
