"""The typed session value, and the one rule for "closed", on captured provider payloads."""

import dataclasses
import json

import pytest

from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.session import Session, is_closed
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.samples import Recorder, sample

ENDPOINT = Endpoint("local", "http://hermes.test", TEST_KEY)


def client_answering(name: str) -> HermesClient:
    return HermesClient(ENDPOINT, transport=Recorder(default=name).transport, retry_backoff=0.0)


def test_get_session_types_every_field_of_the_captured_row():
    session = client_answering("030_get").get_session("peer-demo")
    assert isinstance(session, Session)
    assert (session.id, session.title, session.source, session.model) == (
        "peer-demo",
        "Demo session",
        "api_server",
        "hermes-agent",
    )
    assert session.started_at == 1796212038.2051926
    assert session.ended_at is None and session.end_reason is None and not session.closed
    assert session.parent_id is None and session.last_active is None
    assert session.message_count == 0 and session.input_tokens == 0
    assert session.estimated_cost_usd is None and session.actual_cost_usd is None
    assert session.has_system_prompt is True and session.has_model_config is False
    # The row as received stays available, in the API's own field names.
    assert session.as_row() == sample("030_get")["body"]["session"]


def test_a_patched_end_reason_makes_the_session_closed():
    session = client_answering("048_patch_end_reason").patch_session(
        "peer-ws", idempotency_key="k", end_reason="user_closed"
    )
    assert session.closed
    assert session.end_reason == "user_closed"
    assert session.ended_at == 1796212040.6383662
    assert not session.compressed


def test_fork_and_create_return_the_typed_child():
    child = client_answering("102_fork_default").fork_session("fork-src", idempotency_key="k")
    assert child.parent_id == "fork-src"
    assert child.title == "Forkable #2" and child.message_count == 2
    created = client_answering("010_create_full").create_session(idempotency_key="k")
    assert created.id == sample("010_create_full")["body"]["session"]["id"]


def test_the_value_is_frozen_and_its_row_is_a_copy():
    row = sample("030_get")["body"]["session"]
    session = Session.from_row(row)
    with pytest.raises(dataclasses.FrozenInstanceError):
        session.title = "changed"  # type: ignore[misc]
    row["title"] = "changed"
    copy = session.as_row()
    copy["title"] = "also changed"
    assert session.title == "Demo session" and session.raw["title"] == "Demo session"
    json.dumps(session.as_row())  # snapshots and evidence store it as JSON


def test_list_row_fields_the_get_row_lacks_are_kept():
    row = sample("121_list_include_children")["body"]["data"][0]
    session = Session.from_row(row)
    assert session.last_active == row["last_active"]
    assert session.parent_id == "ended-src"
    assert session.raw["preview"] == ""  # untyped, still there


def test_values_of_the_wrong_type_are_unknown_not_passed_on():
    row = {"id": "x", "title": 5, "message_count": "many", "has_system_prompt": 1}
    session = Session.from_row({**row, "parent_session_id": ""})
    assert session.title is None and session.message_count is None
    assert session.has_system_prompt is None and session.parent_id is None


@pytest.mark.parametrize(
    ("fields", "closed"),
    [
        ({}, False),
        ({"ended_at": None, "end_reason": None}, False),
        ({"ended_at": None, "end_reason": ""}, False),
        ({"ended_at": 10.0, "end_reason": "user_closed"}, True),
        ({"ended_at": 10.0, "end_reason": None}, True),  # another writer set only the time
        ({"ended_at": None, "end_reason": "compression"}, True),
    ],
)
def test_is_closed_decides_for_plain_rows_and_sessions_alike(fields, closed):
    row = {"id": "x", **fields}
    assert is_closed(row) is closed
    assert Session.from_row(row).closed is closed


def test_is_closed_on_the_captured_list():
    rows = sample("121_list_include_children")["body"]["data"]
    closed = {row["id"] for row in rows if is_closed(row)}
    assert closed == {"ended-src", "api_1796212047_99921385", "fork-src", "peer-ws"}


def test_is_closed_of_nothing_is_false():
    assert is_closed(None) is False
    assert is_closed("peer-ws") is False
