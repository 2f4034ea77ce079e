"""The export's yes/no parameters are read explicitly: ``redact=0`` means no redaction.

Before, ``redact`` was a checkbox field, which reads every value but
``false`` as true: a reviewer asking ``redact=0`` got a *redacted* copy.
"""

import copy
import json

import httpx
import pytest

from hermes_ui.web.links import session_url
from tests.support.samples import sample

SID = "peer-demo"
EMAIL = "ana.silva@example.org"


@pytest.fixture
def planted(recorder):
    """The captured session, its first message carrying an e-mail address."""
    messages = copy.deepcopy(sample("090_messages")["body"])
    messages["data"][0]["content"] = f"write to {EMAIL}"
    recorder.routes[("GET", f"/api/sessions/{SID}")] = "030_get"
    recorder.routes[("GET", f"/api/sessions/{SID}/messages")] = httpx.Response(200, json=messages)
    return recorder


def _export(client, **query):
    answer = client.get(session_url("local", SID, "session_export", format="json", **query))
    if answer.status_code != 200:
        return answer.status_code, answer.content.decode()
    return 200, json.loads(b"".join(answer.streaming_content))


def _redacted(doc: dict) -> bool:
    text = json.dumps(doc)
    assert doc["redacted"] is doc["redaction"]["applied"]
    assert (EMAIL in text) is not doc["redacted"]  # the flag says what the file holds
    return doc["redacted"]


@pytest.mark.parametrize("value", ["0", "false", "FALSE", "off", "no", ""])
def test_a_reviewer_asking_for_no_redaction_gets_the_text_as_it_is(planted, login, value):
    status, doc = _export(login("reviewer"), redact=value)
    assert status == 200 and _redacted(doc) is False


@pytest.mark.parametrize("value", ["1", "true", "True", "on", "yes"])
def test_a_reviewer_asking_for_redaction_gets_it(planted, login, value):
    status, doc = _export(login("reviewer"), redact=value)
    assert status == 200 and _redacted(doc) is True


def test_a_reviewer_who_does_not_ask_gets_the_text_as_it_is(planted, login):
    status, doc = _export(login("reviewer"))
    assert status == 200 and _redacted(doc) is False


@pytest.mark.parametrize("query", [{}, {"redact": "0"}, {"redact": "false"}, {"redact": "1"}])
def test_support_always_gets_the_redacted_copy(planted, login, query):
    status, doc = _export(login("support"), **query)
    assert status == 200 and _redacted(doc) is True


@pytest.mark.parametrize("value", ["2", "-1", "maybe", "nein", "\uff10", "1 0"])
@pytest.mark.parametrize("role", ["reviewer", "support"])
def test_any_other_value_is_a_400_that_says_what_is_accepted(planted, login, role, value):
    status, page = _export(login(role), redact=value)
    assert status == 400
    assert "redact must be 1 or 0 (or true/false, on/off, yes/no)" in page


def test_lineage_is_read_the_same_way(planted, login):
    status, page = _export(login("reviewer"), lineage="sometimes")
    assert status == 400 and "lineage must be 1 or 0" in page
    status, doc = _export(login("reviewer"), lineage="0")
    assert status == 200 and doc["lineage_export"] is False
