"""The dataset export against the real peer: records equal the labels given, secrets are
masked, hostile text stays data, the SHA-256 trailer verifies, and the audit holds no text."""

import csv
import hashlib
import io
import json
import secrets

import pytest
from django.test import override_settings
from django.urls import reverse

from devtools.peer import demo_ids as ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index import sync
from hermes_ui.review.models import Correction, Item
from tests.review.filters_rules_export.made import item, review

pytestmark = [pytest.mark.peer, pytest.mark.django_db]

API_KEY = "sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2"
EMAIL = "ana.silva@example.org"
HOSTILE = '=HYPERLINK("http://evil.test") <script>alert(1)</script> "q" \\ \u2028'


@pytest.fixture
def labelled(dataset_endpoint, users, version, queue_maker):
    """A planted session (a secret in the user's message, which the stub model echoes),
    reviewed twice, with a correction; and a seeded session with a message label."""
    client = HermesClient(dataset_endpoint)
    sid = f"dataset-{secrets.token_hex(4)}"
    try:
        client.create_session(idempotency_key=mint_key(), session_id=sid, title=sid)
        client.chat(sid, message=f"My key is {API_KEY}, write to {EMAIL}")
        client.chat(sid, message="thanks")
        rows = client.get_messages(sid)["data"]
        tool_rows = client.get_messages(ids.TOOL_SESSION)["data"]
    finally:
        client.close()
    assert [r["role"] for r in rows] == ["user", "assistant", "user", "assistant"]
    answer = rows[1]["id"]
    queue = queue_maker(dataset_endpoint, "dataset")
    whole = item(queue, sid, state=Item.COMPLETED)
    reviewer, admin = users["reviewer"], users["admin"]
    given = {
        "reviewer": (
            {"resolved": "no", "policy": "privacy"},
            {answer: {"accuracy": "wrong", "note": f"{HOSTILE} {EMAIL}"}},
        ),
        "admin": ({"resolved": "yes", "policy": "privacy"}, {answer: {"accuracy": "wrong"}}),
    }
    review(whole, reviewer, version, *given["reviewer"])
    review(whole, admin, version, *given["admin"])
    review(whole, users["admin2"], version, {"resolved": "yes"}, done=False)  # a draft
    Correction.objects.create(
        **dataset_endpoint.scope(),
        session_id=sid,
        message_id=answer,
        author=reviewer,
        author_name="reviewer",
        text=f"{HOSTILE} Mail {EMAIL} instead.",
    )
    tool_message = tool_rows[-1]["id"]
    part = item(queue, ids.TOOL_SESSION, message_id=tool_message, state=Item.COMPLETED)
    review(part, reviewer, version, messages={tool_message: {"accuracy": "right"}})
    # The index the dataset's session search reads; a dataset's messages come from Hermes,
    # so no transcript is read into the index (most of the sync's time).
    with override_settings(HERMES_INDEX_CONTENT=False):
        sync.sync(dataset_endpoint, full=False)
    return {
        "queue": queue,
        "sid": sid,
        "rows": rows,
        "answer": answer,
        "given": given,
        "tool": (tool_message, len(tool_rows)),
        "users": users,
    }


def download(client, url, **query):
    answer = client.get(url, query)
    assert answer.status_code == 200 and answer.streaming, answer
    assert answer["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"
    return answer, b"".join(answer.streaming_content)


def jsonl(body: bytes) -> tuple[list[dict], dict]:
    *lines, last = body.decode().splitlines()
    trailer = json.loads(last)
    covered = body[: body.rindex(b"\n", 0, len(body) - 1) + 1]
    assert hashlib.sha256(covered).hexdigest() == trailer["sha256"]  # the digest verifies
    return [json.loads(line) for line in lines], trailer


def queue_url(world) -> str:
    return reverse("review_dataset", kwargs={"endpoint": "local", "queue": world["queue"].pk})


def test_jsonl_per_message_equals_the_labels_given_and_masks_secrets(labelled, login):
    world, users = labelled, labelled["users"]
    answer, body = download(login("reviewer"), queue_url(world), format="jsonl", per="message")
    assert answer["Content-Disposition"].endswith('.jsonl"')
    assert API_KEY.encode() not in body and EMAIL.encode() not in body  # masked by default
    assert b"<script>" not in body  # hostile text is JSON, escaped
    records, trailer = jsonl(body)
    assert trailer["records"] == len(records) == 2 and trailer["failed"] == 0
    first, tool = records
    user_text = world["rows"][0]["content"]
    assert first["session_id"] == world["sid"] and first["message_id"] == world["answer"]
    assert first["context"] == [
        {
            "role": "user",
            "text": user_text.replace(API_KEY, "[redacted:api-key]").replace(
                EMAIL, "[redacted:email]"
            ),
        }
    ]
    # The stub model echoes the message (Hermes shortens the key in what it stores).
    assert first["role"] == "assistant" and "[redacted:email]" in first["output"]
    assert first["correction"] == f"{HOSTILE} Mail [redacted:email] instead."
    assert first["correction_by"] == "reviewer"
    # Each completed review's own labels of the message (the draft is no review yet).
    expected = {
        name: {
            field: value.replace(EMAIL, "[redacted:email]")
            for field, value in world["given"][name][1][world["answer"]].items()
        }
        for name in ("reviewer", "admin")
    }
    assert {r["reviewer"]: r["labels"] for r in first["reviews"]} == expected
    assert {(r["rubric"], r["rubric_version"]) for r in first["reviews"]} == {
        ("Data test rubric", 3)
    }
    # Both agree on accuracy; the note is the one reviewer's who wrote one.
    assert first["labels"] == {"accuracy": "wrong", "note": f"{HOSTILE} [redacted:email]"}
    assert first["reviewer_ids"] == sorted([users["reviewer"].pk, users["admin"].pk])
    assert (tool["session_id"], tool["message_id"]) == (ids.TOOL_SESSION, world["tool"][0])
    assert tool["labels"] == {"accuracy": "right"} and len(tool["context"]) == world["tool"][1] - 1


def test_per_session_records_carry_the_session_labels(labelled, login):
    _, body = download(login("admin"), queue_url(labelled), format="jsonl", per="session")
    records, _ = jsonl(body)
    by_id = {r["session_id"]: r for r in records}
    planted = by_id[labelled["sid"]]
    assert planted["message_id"] == labelled["rows"][-1]["id"] and len(planted["context"]) == 3
    # resolved: one "no", one "yes" (a tie: no value); policy: both "privacy".
    assert planted["labels"] == {"policy": "privacy"}
    assert sorted(r["labels"]["resolved"] for r in planted["reviews"]) == ["no", "yes"]
    assert by_id[ids.TOOL_SESSION]["labels"] == {}  # its label is a message's


def test_reviewers_may_opt_out_of_masking_support_may_not(labelled, login):
    _, raw = download(login("reviewer"), queue_url(labelled), format="jsonl", redact="0")
    assert API_KEY in raw.decode() and EMAIL in raw.decode()
    _, masked = download(login("support"), queue_url(labelled), format="jsonl", redact="0")
    assert API_KEY not in masked.decode() and EMAIL not in masked.decode()
    events = AuditEvent.objects.filter(capability="review.dataset_export").order_by("id")
    assert [e.evidence["redacted"] for e in events] == [False, True]
    for event in events:
        assert event.outcome == "success" and event.evidence["count"] == 2
        assert event.evidence["format"] == "jsonl" and len(event.evidence["sha256"]) == 64
        assert "HYPERLINK" not in str(event.evidence) and EMAIL not in str(event.evidence)


def test_csv_neutralises_formulas_and_its_last_line_states_the_sha256(labelled, login):
    answer, body = download(login("reviewer"), queue_url(labelled), format="csv")
    assert answer["Content-Type"].startswith("text/csv")
    head, _, last = body.rstrip(b"\r\n").rpartition(b"\r\n")
    assert last.startswith(b"#sha256,")
    assert hashlib.sha256(head + b"\r\n").hexdigest() == last.split(b",")[1].decode()
    rows = list(csv.DictReader(io.StringIO(head.decode() + "\r\n")))
    assert len(rows) == 2
    assert rows[0]["correction"] == f"'{HOSTILE} Mail [redacted:email] instead."
    assert json.loads(rows[0]["labels"])["accuracy"] == "wrong"
    assert EMAIL not in body.decode()


def test_a_search_export_and_bad_queries(labelled, login):
    client = login("reviewer")
    url = reverse("review_dataset_search", kwargs={"endpoint": "local"})
    form = client.get(url, {"q": "label:accuracy=wrong"})
    assert form.status_code == 200 and 'id="dataset-form"' in form.content.decode()
    _, body = download(client, url, q="label:accuracy=wrong", format="jsonl")
    records, _ = jsonl(body)
    assert [(r["session_id"], r["message_id"]) for r in records] == [
        (labelled["sid"], labelled["answer"])
    ]
    bad = client.get(url, {"q": "refund role:user", "format": "jsonl"})
    assert bad.status_code == 400 and "filter messages, not sessions" in bad.content.decode()
    wrong = client.get(queue_url(labelled), {"format": "xml"})
    assert wrong.status_code == 400 and "Select a valid choice" in wrong.content.decode()
