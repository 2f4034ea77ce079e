"""A turn's reads of the transcript on a Hermes that pages it (the fake applies the paging
peer's rules): the last page where it holds what is needed, the whole otherwise."""

from hermes_ui.chat import durability
from hermes_ui.hermes.client import HermesClient
from tests.hermes.test_messages_paging import message_params, paging_fake


def client_of(fake, endpoint):
    return HermesClient(endpoint, transport=fake.transport, read_retries=0, retry_backoff=0.0)


def test_a_turn_is_verified_from_the_last_page(mock_endpoint):
    fake = paging_fake(1200)
    fake.chat("long")  # rows 1201 ("x") and 1202 ("Echo: x")
    client = client_of(fake, mock_endpoint)
    result = durability.check(client, "long", message="x", answer="Echo: x", after=1200)
    assert (result["status"], result["user_row"], result["assistant_row"]) == (
        "verified",
        1201,
        1202,
    )
    assert message_params(fake) == [("latest", "500", "0")]


def test_a_turn_longer_than_the_last_page_is_checked_on_the_whole_transcript(mock_endpoint):
    fake = paging_fake(1200)
    for _ in range(300):  # 600 rows since the baseline: the last page does not reach it
        fake.chat("long")
    client = client_of(fake, mock_endpoint)
    result = durability.check(client, "long", message="x", answer="Echo: x", after=1200)
    assert result["status"] == "verified" and result["assistant_row"] == 1800
    assert message_params(fake)[0] == ("latest", "500", "0")
    assert [p[0] for p in message_params(fake)[1:]] == ["oldest"] * 4


def test_on_a_release_without_paging_one_read_serves(mock_endpoint):
    fake = paging_fake(1200)
    fake.paging = False
    fake.chat("long")
    client = client_of(fake, mock_endpoint)
    result = durability.check(client, "long", message="x", answer="Echo: x", after=1200)
    assert result["status"] == "verified" and len(message_params(fake)) == 1
