"""Reading a transcript whole (``hermes.messages``): pages from the oldest on a newer,
paging Hermes (the fake applies the paging peer's rules), one call on 0.15-0.19, and a
page failing half-way never taken for the whole transcript anywhere."""

import json
import re

import httpx
import pytest

from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.messages import IncompleteTranscript
from hermes_ui.index import sync
from hermes_ui.index.models import ContentMessage
from hermes_ui.web.links import session_url
from tests.support.fakes import FakeHermes

ENDPOINT_ARGS = {"read_retries": 0, "retry_backoff": 0.0}


def paging_fake(count=1200, sid="long") -> FakeHermes:
    fake = FakeHermes()
    fake.paging = True
    fake.add(sid, message_count=count)
    return fake


def client_of(fake, endpoint) -> HermesClient:
    return HermesClient(endpoint, transport=fake.transport, **ENDPOINT_ARGS)


def message_params(fake) -> list[tuple]:
    return [
        (r.url.params.get("order"), r.url.params.get("limit"), r.url.params.get("offset"))
        for r in fake.requests
        if r.url.path.endswith("/messages")
    ]


def test_a_paging_server_is_read_from_the_oldest_until_a_short_page(mock_endpoint):
    fake = paging_fake(1200)
    payload = client_of(fake, mock_endpoint).get_messages("long")
    assert [row["id"] for row in payload["data"]] == list(range(1, 1201))
    assert "pagination" not in payload and payload["session_id"] == "long"
    assert message_params(fake) == [
        ("oldest", "500", "0"),
        ("oldest", "500", "500"),
        ("oldest", "500", "1000"),
    ]


def test_a_full_last_page_costs_one_empty_page_more(mock_endpoint):
    fake = paging_fake(1000)
    assert len(client_of(fake, mock_endpoint).get_messages("long")["data"]) == 1000
    assert [p[2] for p in message_params(fake)] == ["0", "500", "1000"]


def test_a_release_without_paging_is_read_in_one_call(mock_endpoint):
    fake = paging_fake(1200)
    fake.paging = False  # 0.19.0: every row, no pagination, the parameters ignored
    payload = client_of(fake, mock_endpoint).get_messages("long")
    assert len(payload["data"]) == 1200 and len(message_params(fake)) == 1


def test_a_page_failing_half_way_is_an_error_carrying_what_was_read(mock_endpoint):
    fake = paging_fake(1200)
    fake.fail_messages_from = 500
    with pytest.raises(IncompleteTranscript) as raised:
        client_of(fake, mock_endpoint).get_messages("long")
    assert len(raised.value.partial["data"]) == 500
    assert raised.value.code == "incomplete_transcript"
    assert "first 500 messages" in raised.value.message
    assert "after message 500 is missing" in raised.value.message


def test_a_server_repeating_its_first_page_is_not_read_forever(mock_endpoint):
    rows = [{"id": n, "session_id": "s", "role": "user", "content": str(n)} for n in range(500)]
    page = {"object": "list", "session_id": "s", "data": rows, "pagination": {"limit": 500}}
    transport = httpx.MockTransport(lambda request: httpx.Response(200, json=page))
    client = HermesClient(mock_endpoint, transport=transport, **ENDPOINT_ARGS)
    with pytest.raises(IncompleteTranscript) as raised:
        client.get_messages("s")
    assert raised.value.cause.code == "malformed_response"


def test_rows_of_compression_ancestors_are_kept_apart_and_counted_once(mock_endpoint):
    fake = paging_fake(4, sid="tip")
    root_rows = [{"id": 100 + n, "session_id": "root", "role": "user"} for n in range(3)]
    fake.messages["tip"] = root_rows + fake.messages["tip"]
    payload = client_of(fake, mock_endpoint).get_messages("tip")
    assert [row["id"] for row in payload["data"]] == [1, 2, 3, 4]
    assert payload["ancestor_rows"] == root_rows


def test_an_answer_without_pagination_is_returned_as_hermes_sent_it(mock_endpoint):
    fake = paging_fake(4, sid="tip")
    fake.paging = False
    fake.messages["tip"][0]["session_id"] = "root"  # 0.19.0 sends no ancestors: left alone
    payload = client_of(fake, mock_endpoint).get_messages("tip")
    assert payload == {"object": "list", "session_id": "tip", "data": fake.messages["tip"]}


def test_latest_turns_are_one_call_on_a_paging_server(mock_endpoint):
    fake = paging_fake(1200)
    payload, whole = client_of(fake, mock_endpoint).latest_messages("long", 101)
    assert not whole and [row["id"] for row in payload["data"]] == list(range(1100, 1201))
    assert message_params(fake) == [("latest", "101", "0")]
    fake.paging = False
    payload, whole = client_of(fake, mock_endpoint).latest_messages("long", 101)
    assert whole and len(payload["data"]) == 1200


# -- what the pages make of it ------------------------------------------------------------


@pytest.fixture
def paging_hermes(mock_endpoint):
    fake = paging_fake(1200)
    from hermes_ui.hermes.client import use_transport

    with use_transport(fake.transport):
        yield fake


@pytest.mark.django_db
def test_the_session_page_says_what_was_read_and_what_is_missing(paging_hermes, login):
    paging_hermes.fail_messages_from = 500
    client = login("support")
    answer = client.get(session_url("local", "long"))
    html = answer.content.decode()
    assert answer.status_code == 200
    assert 'id="transcript-incomplete"' in html
    assert "the first 500 messages of this transcript" in html
    assert "Everything after message 500 is missing." in html
    assert "hello long 1<" in html  # what was read is shown
    assert "500 messages" in html  # the part is counted as what it is, never as the whole
    # Nothing partial was kept for the chunks: once Hermes answers, the whole is there.
    paging_hermes.fail_messages_from = None
    html = client.get(session_url("local", "long")).content.decode()
    assert 'id="transcript-incomplete"' not in html and "1,200 messages" in html


@pytest.mark.django_db
def test_the_latest_turns_read_only_the_last_page(paging_hermes, login):
    html = login("support").get(session_url("local", "long", at="latest")).content.decode()
    assert "hello long 1200" in html and "hello long 1100<" not in html
    assert "from message 1,101 of 1,200" in html and 'id="earlier-messages"' in html
    assert message_params(paging_hermes) == [("latest", "101", "0")]


@pytest.mark.django_db
def test_an_export_of_a_transcript_failing_half_way_is_no_download(paging_hermes, login):
    paging_hermes.fail_messages_from = 500
    answer = login("admin").get(session_url("local", "long", "session_export", format="json"))
    assert answer.status_code != 200 or not answer.streaming
    assert b"after message 500 is missing" in answer.content


@pytest.mark.django_db
def test_the_index_keeps_its_last_complete_copy(paging_hermes, mock_endpoint):
    assert sync.sync(mock_endpoint, full=True).error_code == ""
    assert ContentMessage.objects.filter(session_id="long").count() == 1200
    paging_hermes.chat("long")  # the transcript changed: it is due again
    paging_hermes.fail_messages_from = 500
    report = sync.sync(mock_endpoint, full=True)
    assert report.error_code == "incomplete_transcript"
    assert ContentMessage.objects.filter(session_id="long").count() == 1200
    assert ContentMessage.objects.filter(session_id="long", text__contains="hello long 1").exists()


@pytest.mark.django_db
def test_a_hidden_compaction_summary_is_collapsed_and_labelled(paging_hermes, login):
    paging_hermes.messages["long"][0].update(content="", display_kind="hidden")
    html = login("support").get(session_url("local", "long")).content.decode()
    article = re.search(r'<article[^>]*id="msg-1".*?</article>', html, re.S).group(0)
    assert '<details class="compaction-hidden"><summary>Compaction summary' in article
    assert "(hidden by Hermes)" in article


@pytest.mark.django_db
def test_the_api_answers_an_error_not_a_part(paging_hermes, bearer):
    paging_hermes.fail_messages_from = 500
    answer = bearer("admin").get("/api/v1/e/local/messages/long")
    assert answer.status_code == 502
    assert answer.json()["code"] == "incomplete_transcript"
    assert "only part of the transcript" in json.dumps(answer.json())


@pytest.mark.django_db
def test_the_session_page_names_the_ancestors_instead_of_showing_their_rows(paging_hermes, login):
    root_rows = [{"id": 9000, "session_id": "root", "role": "user", "content": "old"}]
    paging_hermes.messages["long"] = root_rows + paging_hermes.messages["long"]
    html = login("support").get(session_url("local", "long")).content.decode()
    assert 'id="transcript-ancestors"' in html
    assert f'href="{session_url("local", "root")}"' in html
    assert 'id="msg-9000"' not in html and "1,200 messages" in html
