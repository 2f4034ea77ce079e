"""Export against the real peer: provider-shaped JSON, hostile text, redaction, lineage, audit."""

import hashlib
import json
import re

import pytest

from devtools.peer import demo_ids as ids
from hermes_ui.audit.models import AuditEvent
from hermes_ui.web.links import session_url
from tests.changes.conftest import make_session, unique
from tests.support.peers import index

pytestmark = [pytest.mark.peer, pytest.mark.django_db]

SECRETS = {
    "api_key": "sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2",
    "bearer": "Bearer tok.Abc123-Def456_Ghi789",
    "email": "ana.silva@example.org",
    "phone": "+351 21 123 4567",
    "card": "4111 1111 1111 1111",
}
NOT_A_CARD = "4111 1111 1111 1112"


def export(client, session_id, **query):
    answer = client.get(session_url("local", session_id, "session_export", **query))
    assert answer.status_code == 200, answer.content.decode()[:800] if not answer.streaming else ""
    assert answer.streaming
    body = b"".join(answer.streaming_content)
    return answer, body


def sha_before(body: bytes, marker: bytes) -> str:
    return hashlib.sha256(body[: body.rindex(marker)]).hexdigest()


def outside_fences(markdown: str) -> str:
    return re.sub(r"(?ms)^(~{3,})text\n.*?\n\1\n", "", markdown)


def test_json_export_keeps_the_provider_messages_and_states_its_hash(login, review_client):
    answer, body = export(login("admin"), ids.TOOL_SESSION, format="json")
    doc = json.loads(body)
    (item,) = doc["sessions"]
    assert item["messages"] == review_client.get_messages(ids.TOOL_SESSION)["data"]
    assert (
        item["session"]["id"] == ids.TOOL_SESSION
        and item["messages_session_id"] == ids.TOOL_SESSION
    )
    assert set(item["lineage"]) >= {"parent_session_id", "kind", "root_session_id", "depth"}
    assert doc["sha256"] == sha_before(body, b'"sha256":')
    assert doc["redaction"]["applied"] is False
    assert answer["Content-Disposition"].startswith("attachment;")
    event = AuditEvent.objects.get(capability="session_export")
    assert event.outcome == "success" and event.username == "admin"
    assert event.evidence["sha256"] == doc["sha256"]
    assert event.evidence["format"] == "json" and event.evidence["redacted"] is False
    assert event.evidence["masked"] == 0 and event.session_id == ids.TOOL_SESSION


@pytest.mark.parametrize("fmt", ["json", "md", "html"])
def test_hostile_content_is_escaped_in_every_format(login, review_client, fmt):
    answer, body = export(login("admin"), ids.XSS_TITLE_SESSION, format=fmt)
    text = body.decode()
    rows = review_client.get_messages(ids.XSS_TITLE_SESSION)["data"]
    assert any("<script" in str(r.get("content")) for r in rows)  # the seed is hostile
    if fmt == "json":
        assert "<" not in text and ">" not in text
        assert json.loads(text)["sessions"][0]["messages"] == rows
    elif fmt == "md":
        # Outside the fences (where text shows literally) every "<" is backslash-escaped.
        assert not re.search(r"(?<!\\)<", outside_fences(text))
        assert "<script" in text  # ...and the message text itself is kept, inside a fence
        assert "\\<script\\>" in text  # the title, escaped in its heading
    else:
        assert "<script" not in text.lower()
        assert not re.search(r"<img", text, re.IGNORECASE)
        assert "&lt;script&gt;" in text
        assert answer["Content-Security-Policy"] == "default-src 'none'; style-src 'unsafe-inline'"
        tags = re.findall(r"<(/?[a-zA-Z!][^>]*)>", text)
        names = {re.match(r"/?!?([a-zA-Z]+[0-9]?)", t).group(1).lower() for t in tags}
        assert names <= {
            "doctype",
            "html",
            "head",
            "meta",
            "title",
            "style",
            "body",
            "h1",
            "h2",
            "dl",
            "dt",
            "dd",
            "code",
            "section",
            "article",
            "div",
            "b",
            "pre",
            "p",
            "details",
            "summary",
            "footer",
        }
        assert not any(re.search(r"\b(src|href|on\w+)\s*=", t, re.IGNORECASE) for t in tags)
        assert text.rstrip().endswith("</html>")
        assert sha_before(body, b"<p>SHA-256") in text.splitlines()[-1]


def test_redaction_masks_planted_secrets_and_counts_them(login, review_client):
    planted = " | ".join(SECRETS.values()) + f" | keep {NOT_A_CARD}"
    session = make_session(review_client, title=unique("Secrets"), chat=f"please store: {planted}")
    rows = review_client.get_messages(session["id"])["data"]
    # The user's message and the model's "Echo: ..." both hold them, except that
    # Hermes itself shortens an API key in the reply it stores ("sk-pro...3Df2").
    # That shortened form still holds 7 characters of the key: it is masked too.
    key = SECRETS["api_key"]
    shapes = [*SECRETS.values(), f"{key[:6]}...{key[-4:]}"]
    planted_count = sum(str(r.get("content")).count(v) for r in rows for v in shapes)
    assert planted_count >= len(SECRETS) + 4
    for fmt in ("json", "md", "html"):
        _, body = export(login("reviewer"), session["id"], format=fmt, redact=1)
        text = body.decode()
        for value in shapes:
            assert value not in text
        assert NOT_A_CARD in text
        assert f"{planted_count} value(s) masked" in text or f'"masked": {planted_count}' in text
    events = AuditEvent.objects.filter(capability="session_export").order_by("id")
    assert [e.evidence["masked"] for e in events] == [planted_count] * 3
    assert all(e.evidence["redacted"] is True for e in events)
    assert not any(SECRETS["email"] in str(e.evidence) for e in events)

    # Support always gets a redacted copy, even without asking.
    _, body = export(login("support"), session["id"], format="json")
    doc = json.loads(body)
    assert doc["redacted"] is True and doc["redaction"]["masked"] == planted_count
    # Unredacted for a reviewer who does not ask.
    _, body = export(login("reviewer"), session["id"], format="json")
    assert SECRETS["email"] in body.decode()


def test_lineage_export_holds_the_whole_tree(login, review_client, review_endpoint):
    index(review_endpoint, transcripts=False)  # the lineage, not the transcripts
    _, body = export(login("admin"), ids.BRANCH_A, format="json", lineage=1)
    doc = json.loads(body)
    got = [item["session"]["id"] for item in doc["sessions"]]
    assert got[0] == ids.BRANCH_PARENT
    assert set(got) == {ids.BRANCH_PARENT, ids.BRANCH_A, ids.BRANCH_B}
    kids = {i["session"]["id"]: i["lineage"] for i in doc["sessions"]}
    assert kids[ids.BRANCH_B]["parent_session_id"] == ids.BRANCH_PARENT
    assert kids[ids.BRANCH_B]["depth"] == 1 and kids[ids.BRANCH_B]["kind"] == "branch"
    for item in doc["sessions"]:
        assert item["messages"] == review_client.get_messages(item["session"]["id"])["data"]


def test_dot_ids_and_bad_formats(login, review_client):
    assert (
        login("admin")
        .get(session_url("local", ids.TOOL_SESSION, "session_export", format="pdf"))
        .status_code
        == 400
    )
    answer = login("admin").get(session_url("local", "..", "session_export", format="md"))
    assert answer.status_code == 404  # no such session on the peer: an error page, not a file


def test_a_redacted_export_masks_the_platform_user_id_in_every_format(login, review_client):
    user_id = review_client.get_session(ids.UNTITLED_SESSION).as_row()["user_id"]
    assert user_id  # the seed gives this Discord session a user
    for fmt in ("json", "md", "html"):
        _, body = export(login("support"), ids.UNTITLED_SESSION, format=fmt)
        assert user_id not in body.decode()
    doc = json.loads(export(login("support"), ids.UNTITLED_SESSION, format="json")[1])
    assert doc["sessions"][0]["session"]["user_id"] == "[redacted:user]"
    assert doc["redaction"]["by_kind"]["user"] == 1
    # Unredacted, the row is the provider's.
    doc = json.loads(export(login("admin"), ids.UNTITLED_SESSION, format="json")[1])
    assert doc["sessions"][0]["session"]["user_id"] == user_id
