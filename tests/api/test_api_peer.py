"""The API against the real peer: the search box's syntax and paging, masking as in
exports, hostile text as JSON strings, writes that need a key and replay, tokens that follow
their user's current role, the dataset's bytes equal to the page's, nothing of a token or
transcript in the logs, and nothing of a deleted session left behind any route."""

from __future__ import annotations

import json
import logging
import secrets
from datetime import timedelta
from urllib.parse import quote

import pytest
from asgiref.sync import async_to_sync
from django.test import AsyncClient, Client
from django.urls import reverse
from django.utils import timezone

from devtools.peer import demo_ids as ids
from hermes_ui.access import grants
from hermes_ui.access.grants import set_role
from hermes_ui.api_tokens import tokens
from hermes_ui.api_tokens.models import ApiToken
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent
from hermes_ui.deletion.models import DeletionRequest
from hermes_ui.hermes.client import HermesClient
from hermes_ui.index.models import IndexedSession
from hermes_ui.review.models import Item, Queue, Rubric, RubricVersion
from hermes_ui.tags.models import SessionTag, Tag
from tests.deletion.helpers import decide, execute
from tests.review.filters_rules_export.made import item, review
from tests.support.peers import index, make

pytestmark = [pytest.mark.peer, pytest.mark.django_db]

API_KEY = "sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2"
EMAIL = "ana.silva@example.org"


def q(session_id: str) -> str:
    return quote(session_id, safe="")


def _post(client, url, body, key=None, method="post"):
    headers = {"Idempotency-Key": key} if key else {}
    send = getattr(client, method)
    return send(url, body, content_type="application/json", headers=headers)


@pytest.fixture
def secret_session(peer_endpoint):
    """A new session whose first message holds an API key and an e-mail address."""
    sid = f"api {secrets.token_hex(4)} %41 #x?y=1"  # odd characters: one path segment
    client = HermesClient(peer_endpoint)
    try:
        client.create_session(
            idempotency_key=mint_key(), session_id=sid, title=f"Mail {EMAIL} {sid[4:12]}"
        )
        client.chat(sid, message=f"My key is {API_KEY}, write to {EMAIL}")
    finally:
        client.close()
    index(peer_endpoint, transcripts=False)
    return sid


@pytest.fixture
def secret_transcript(secret_session, peer_endpoint):
    """``secret_session``, with every transcript read into the index (transcript search)."""
    index(peer_endpoint)
    return secret_session


# -- reads ------------------------------------------------------------------------------


def test_search_takes_the_search_box_syntax_and_pages_with_a_cursor(peer_endpoint, bearer):
    index(peer_endpoint, transcripts=False)
    client = bearer("support")
    seen, cursor, total = [], "", None
    while True:
        answer = client.get(
            "/api/v1/e/local/sessions", {"q": "kind:root", "limit": 25, "cursor": cursor}
        )
        assert answer.status_code == 200
        page = answer.json()
        total = page["total"] if total is None else total
        assert all(row["kind"] == "root" for row in page["data"])
        seen += [row["id"] for row in page["data"]]
        cursor = page["next_cursor"]
        if not cursor:
            break
    assert len(seen) == len(set(seen)) == total > 25  # every match once, over several pages
    closed = client.get("/api/v1/e/local/sessions", {"q": f"reason:{ids.CUSTOM_END_REASON}"}).json()
    assert [row["id"] for row in closed["data"]] == [ids.CUSTOM_END]


def test_search_applies_feature_filters_as_the_index_page_does(peer_endpoint, bearer, login):
    index(peer_endpoint, transcripts=False)
    tag = Tag.objects.create(name="api-filter")
    SessionTag.objects.create(**peer_endpoint.scope(), session_id=ids.TOOL_SESSION, tag=tag)
    client = bearer("support")
    tagged = client.get("/api/v1/e/local/sessions", {"q": "tag:api-filter"}).json()
    assert [row["id"] for row in tagged["data"]] == [ids.TOOL_SESSION]
    assert "api-filter" in tagged["data"][0]["badges"]
    page = login("support").get(
        reverse("session_list", kwargs={"endpoint": "local"}), {"q": "tag:api-filter"}
    )
    assert ids.TOOL_SESSION in page.content.decode()  # the page finds the same session
    excluded = client.get("/api/v1/e/local/sessions", {"q": "-tag:api-filter", "limit": 200}).json()
    assert ids.TOOL_SESSION not in [row["id"] for row in excluded["data"]]


@pytest.mark.parametrize(
    "query, code",
    [
        ({"q": "tag:no-such-tag"}, "bad_query"),
        ({"q": "open:perhaps"}, "bad_query"),
        ({"q": "after:yesterday"}, "bad_query"),
        ({"cursor": "!!!"}, "bad_cursor"),
        ({"cursor": "eyJhZnRlciI6Im5vIn0"}, "bad_query"),  # {"after": "no"}
        ({"limit": "0"}, "bad_request"),
        ({"limit": "many"}, "bad_request"),
        ({"within": "everything"}, "bad_request"),
        ({"q": "x\ny"}, "bad_query"),
    ],
)
def test_bad_search_input_is_a_json_400(peer_endpoint, bearer, query, code):
    answer = bearer("support").get("/api/v1/e/local/sessions", query)
    assert answer.status_code == 400
    body = answer.json()
    assert body["code"] == code and body["message"]


def test_an_unknown_filter_is_a_note_and_a_near_miss_a_400_as_in_the_search_box(
    peer_endpoint, bearer
):
    client = bearer("support")
    typo = client.get("/api/v1/e/local/sessions", {"q": "sorce:cli"})
    assert typo.status_code == 400 and typo.json()["code"] == "bad_query"
    assert "source:" in typo.json()["message"]
    words = client.get("/api/v1/e/local/sessions", {"q": "foo:bar"}).json()
    assert words["notes"] == ["`foo` is not a filter; searched `foo:bar` as words"]
    quoted = client.get("/api/v1/e/local/sessions", {"q": '"foo:bar"'}).json()
    assert quoted["notes"] == []


def test_transcripts_are_searched_within_transcripts(secret_transcript, bearer):
    found = (
        bearer("support")
        .get("/api/v1/e/local/sessions", {"q": "write", "within": "transcripts"})
        .json()
    )
    assert secret_transcript in [hit["session_id"] for hit in found["data"]]


def test_support_gets_the_transcript_masked_as_in_exports(secret_session, bearer):
    support = bearer("support").get(f"/api/v1/e/local/messages/{q(secret_session)}?redact=false")
    body = support.content.decode()
    assert support.json()["masked"] is True
    assert API_KEY not in body and EMAIL not in body and "[redacted:email]" in body
    meta = bearer("support").get(f"/api/v1/e/local/session/{q(secret_session)}?redact=false").json()
    assert (
        EMAIL not in json.dumps(meta)
        and meta["session"]["title"] == f"Mail [redacted:email] {secret_session[4:12]}"
    )
    reviewer = (
        bearer("reviewer").get(f"/api/v1/e/local/messages/{q(secret_session)}?redact=false").json()
    )
    assert reviewer["masked"] is False and EMAIL in json.dumps(reviewer)
    default = bearer("admin").get(f"/api/v1/e/local/messages/{q(secret_session)}").json()
    assert default["masked"] is True and EMAIL not in json.dumps(default)


def test_hostile_text_comes_back_as_json_strings(peer_endpoint, bearer):
    index(peer_endpoint, transcripts=False)
    answer = bearer("reviewer").get(f"/api/v1/e/local/session/{ids.XSS_TITLE_SESSION}?redact=false")
    assert answer["Content-Type"] == "application/json; charset=utf-8"
    assert answer["X-Content-Type-Options"] == "nosniff"
    assert answer.json()["session"]["title"] == ids.XSS_TITLE  # data, exactly as Hermes has it
    found = bearer("reviewer").get("/api/v1/e/local/sessions", {"q": "script"}).json()
    assert ids.XSS_TITLE in [row["title"] for row in found["data"]]


def test_session_and_lineage_routes_take_odd_ids(secret_session, bearer):
    client = bearer("reviewer")
    meta = client.get(f"/api/v1/e/local/session/{q(secret_session)}").json()
    assert meta["session"]["id"] == secret_session and meta["tags"] == []
    family = client.get(f"/api/v1/e/local/lineage/{q(secret_session)}").json()
    assert [node["id"] for node in family["nodes"]] == [secret_session] and family["edges"] == []


def test_lineage_has_nodes_edges_and_totals(peer_endpoint, bearer):
    index(peer_endpoint, transcripts=False)
    family = bearer("support").get(f"/api/v1/e/local/lineage/{ids.COMPRESSION_TIP}").json()
    node_ids = {node["id"] for node in family["nodes"]}
    assert set(ids.COMPRESSION_CHAIN) <= node_ids
    assert family["root_id"] == ids.COMPRESSION_ROOT and family["tip_id"] == ids.COMPRESSION_TIP
    pairs = {(edge["parent"], edge["child"]) for edge in family["edges"]}
    chain = ids.COMPRESSION_CHAIN
    assert {(chain[0], chain[1]), (chain[1], chain[2])} <= pairs
    assert len(pairs) == len(node_ids) - 1  # a tree
    assert family["totals"]["tree"]["sessions"] == len(node_ids)
    meta = bearer("support").get(f"/api/v1/e/local/session/{ids.COMPRESSION_TIP}").json()
    assert meta["lineage"]["root_id"] == ids.COMPRESSION_ROOT
    assert meta["lineage"]["parent_id"] == ids.COMPRESSION_C1


def test_a_method_a_route_lacks_is_a_json_405(peer_endpoint, bearer):
    answer = bearer("support").put("/api/v1/endpoints")
    assert answer.status_code == 405 and answer.json()["code"] == "method_not_allowed"
    assert answer["Allow"] == "GET"
    dataset = bearer("support").post("/api/v1/e/local/review/queues/1/dataset")
    assert dataset.status_code == 405 and dataset.json()["code"] == "method_not_allowed"


def test_writes_need_no_csrf_token_since_no_cookie_counts(peer_endpoint, bearer):
    Tag.objects.create(name="csrf-free")
    client = bearer("reviewer", write=True)
    strict = Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {client.token}"})
    url = f"/api/v1/e/local/tags/{ids.TOOL_SESSION}"
    assert _post(strict, url, {"tag": "csrf-free"}, mint_key()).status_code == 200


def test_an_unknown_session_or_endpoint_is_a_json_404(peer_endpoint, bearer):
    client = bearer("support")
    missing = client.get("/api/v1/e/local/session/no-such-session-anywhere")
    assert missing.status_code == 404 and missing.json()["code"] == "session_not_found"
    assert client.get("/api/v1/e/nowhere/sessions").json()["code"] == "not_found"
    assert client.get("/api/v1/no/such/route").json()["code"] == "not_found"


def test_a_source_limited_person_gets_hermes_own_404_for_another_source(
    peer_endpoint, django_user_model
):
    """Against the real Hermes: a session of a source outside the grant answers, byte for
    byte, as a session Hermes does not have; one of the granted source answers."""
    index(peer_endpoint, transcripts=False)
    sources = dict(
        IndexedSession.objects.filter(endpoint="local").values_list("session_id", "source")
    )
    mine = sources[ids.TOOL_SESSION]
    other = next(sid for sid, source in sorted(sources.items()) if source != mine)
    person = django_user_model.objects.create_user("limited")
    grants.grant("local", "support", [mine], user=person)
    _, plain = tokens.issue(person, "limited")
    client = Client(headers={"Authorization": f"Bearer {plain}"})
    assert client.get(f"/api/v1/e/local/session/{ids.TOOL_SESSION}").status_code == 200
    missing = client.get("/api/v1/e/local/session/no-such-session-anywhere")
    assert missing.status_code == 404 and missing.json()["code"] == "session_not_found"
    for route in ("session", "messages", "lineage"):
        hidden = client.get(f"/api/v1/e/local/{route}/{q(other)}")
        assert hidden.status_code == 404, route
        assert hidden.content == missing.content, route


# -- tokens follow their user -------------------------------------------------------------


def test_a_demoted_users_token_loses_access_at_once(peer_endpoint, bearer, users):
    client = bearer("reviewer", write=True)
    assert client.get("/api/v1/e/local/review/queues").status_code == 200
    set_role(users["reviewer"], "support")
    assert client.get("/api/v1/e/local/review/queues").status_code == 403
    assert client.get("/api/v1/endpoints").status_code == 200  # still support
    users["reviewer"].is_active = False
    users["reviewer"].save()
    assert client.get("/api/v1/endpoints").status_code == 401


def test_revoked_and_expired_tokens_are_401(peer_endpoint, bearer):
    client = bearer("admin")
    assert client.get("/api/v1/endpoints").status_code == 200
    token = ApiToken.objects.get(user__username="admin")
    ApiToken.objects.filter(pk=token.pk).update(expires_at=timezone.now() - timedelta(seconds=1))
    assert client.get("/api/v1/endpoints").status_code == 401
    other = bearer("support")
    ApiToken.objects.filter(user__username="support").update(revoked_at=timezone.now())
    answer = other.get("/api/v1/endpoints")
    assert answer.status_code == 401 and answer["WWW-Authenticate"].startswith("Bearer")


def test_a_token_over_its_rate_is_429_with_retry_after(peer_endpoint, bearer, settings):
    settings.HERMES_UI_API_RATE = 3
    client, calm = bearer("support"), bearer("reviewer")
    assert [client.get("/api/v1/e/local/usage").status_code for _ in range(3)] == [200] * 3
    limited = client.get("/api/v1/e/local/usage")
    assert limited.status_code == 429 and limited.json()["code"] == "rate_limited"
    assert 1 <= int(limited["Retry-After"]) <= 61
    assert calm.get("/api/v1/e/local/usage").status_code == 200  # per person


# -- writes -------------------------------------------------------------------------------


def test_a_write_without_an_idempotency_key_is_400_and_changes_nothing(peer_endpoint, bearer):
    Tag.objects.create(name="keyless")
    client = bearer("reviewer", write=True)
    url = f"/api/v1/e/local/tags/{ids.TOOL_SESSION}"
    answer = _post(client, url, {"tag": "keyless"})
    assert answer.status_code == 400 and answer.json()["code"] == "idempotency_key_required"
    bad = _post(client, url, {"tag": "keyless"}, key="short")
    assert bad.status_code == 400 and bad.json()["code"] == "bad_idempotency_key"
    assert not SessionTag.objects.exists()


def test_a_repeated_key_returns_the_first_result_and_changes_nothing_twice(peer_endpoint, bearer):
    tag = Tag.objects.create(name="replayed")
    client = bearer("reviewer", write=True)
    url, key = f"/api/v1/e/local/tags/{ids.TOOL_SESSION}", mint_key()
    first = _post(client, url, {"tag": "Replayed"}, key)
    assert first.status_code == 200
    assert first.json() == {
        "op": "add",
        "id": tag.pk,
        "session_id": ids.TOOL_SESSION,
        "count": 1,
        "replayed": False,
    }
    SessionTag.objects.all().delete()  # had it run again, the tag would be back
    again = _post(client, url, {"tag": "Replayed"}, key)
    assert again.json() == {**first.json(), "replayed": True}
    assert not SessionTag.objects.exists()
    assert AuditEvent.objects.filter(capability="tags.add").count() == 1
    removed = _post(client, url, {"tag": str(tag.pk)}, mint_key(), method="delete")
    assert removed.json()["op"] == "remove" and removed.json()["count"] == 0


def test_sessions_are_added_to_a_queue_once(peer_endpoint, bearer, users):
    rubric = Rubric.objects.create(name="api")
    RubricVersion.objects.create(rubric=rubric, number=1, fields=[])
    queue = Queue.objects.create(
        **peer_endpoint.scope(), name="q", rubric=rubric, owner=users["admin"], any_reviewer=False
    )
    client = bearer("reviewer", write=True)
    url = f"/api/v1/e/local/review/queues/{queue.pk}/items"
    body = {"session_ids": [ids.TOOL_SESSION, ids.LONG_SESSION]}
    assert _post(client, url, body, mint_key()).status_code == 403  # not assigned
    queue.any_reviewer = True
    queue.save()
    key = mint_key()
    first = _post(client, url, body, key).json()
    assert (first["added"], first["already"]) == (2, 0)
    assert _post(client, url, body, key).json() == {**first, "replayed": True}
    second = _post(client, url, body, mint_key()).json()
    assert (second["added"], second["already"]) == (0, 2)
    assert Item.objects.filter(queue=queue).count() == 2
    bad = _post(client, url, {"session_ids": []}, mint_key())
    assert bad.status_code == 400


def test_a_deletion_request_is_filed_once_and_never_executed(secret_session, bearer):
    client = bearer("support", write=True)
    url, key = f"/api/v1/e/local/deletion/{q(secret_session)}", mint_key()
    first = _post(client, url, {"reason": "ticket 42"}, key)
    assert first.status_code == 201 and first.json()["created"] is True
    assert first.json()["state"] == "pending"
    assert _post(client, url, {"reason": "ticket 42"}, key).json() == {
        **first.json(),
        "replayed": True,
    }
    other = _post(client, url, {"reason": "another reason"}, mint_key()).json()
    assert other["created"] is False and other["request_id"] == first.json()["request_id"]
    assert DeletionRequest.objects.count() == 1
    assert bearer("reviewer").get(f"/api/v1/e/local/session/{q(secret_session)}").status_code == 200
    empty = _post(client, url, {"reason": "   "}, mint_key())
    assert empty.status_code == 400 and empty.json()["code"] == "bad_request"


def test_a_write_body_of_the_wrong_shape_is_a_json_400(peer_endpoint, bearer):
    client = bearer("reviewer", write=True)
    url = f"/api/v1/e/local/tags/{ids.TOOL_SESSION}"
    for body in ("not json", {"tag": ["a"]}, {}):
        answer = client.post(
            url, body, content_type="application/json", headers={"Idempotency-Key": mint_key()}
        )
        assert answer.status_code == 400 and answer.json()["code"] == "bad_request"


# -- the dataset through the API is the page's --------------------------------------------


@pytest.mark.parametrize("role", ["support", "reviewer"])
@pytest.mark.parametrize("fmt, per", [("jsonl", "message"), ("csv", "session")])
def test_the_dataset_is_byte_identical_to_the_pages(
    secret_session, peer_endpoint, bearer, login, users, role, fmt, per
):
    rubric = Rubric.objects.create(name="api data")
    version = RubricVersion.objects.create(
        rubric=rubric,
        number=1,
        fields=[
            {"key": "resolved", "label": "Resolved", "type": "bool", "applies": "session"},
            {"key": "note", "label": "Note", "type": "text", "applies": "message"},
        ],
    )
    queue = Queue.objects.create(**peer_endpoint.scope(), name="data", rubric=rubric)
    rows = HermesClient(peer_endpoint).get_messages(secret_session)["data"]
    done = item(queue, secret_session, state=Item.COMPLETED)
    review(
        done,
        users["reviewer"],
        version,
        {"resolved": "no"},
        {rows[-1]["id"]: {"note": f"to {EMAIL}"}},
    )
    query = {"format": fmt, "per": per, "redact": "0"}
    page = login(role).get(
        reverse("review_dataset", kwargs={"endpoint": "local", "queue": queue.pk}), query
    )
    api_client, path = bearer(role), f"/api/v1/e/local/review/queues/{queue.pk}/dataset"
    api = api_client.get(path, query)
    assert page.status_code == api.status_code == 200
    page_bytes, api_bytes = b"".join(page.streaming_content), b"".join(api.streaming_content)
    assert api_bytes == page_bytes and len(api_bytes) > 100
    assert api["Content-Disposition"] == page["Content-Disposition"]
    assert (EMAIL.encode() in api_bytes) is (role != "support")  # support: masked anyway
    assert _over_asgi(f"Bearer {api_client.token}", path, query) == page_bytes


def _over_asgi(authorization: str, path: str, query: dict) -> bytes:
    """The same download through Django's ASGI handler, where it streams off the event loop."""

    async def fetch():
        # Per request: AsyncClient does not send the headers given to its constructor.
        answer = await AsyncClient().get(path, query, headers={"Authorization": authorization})
        assert answer.status_code == 200 and answer.is_async
        return b"".join([chunk async for chunk in answer.streaming_content])

    return async_to_sync(fetch)()


# -- logs and erasure ---------------------------------------------------------------------


def test_no_token_or_transcript_text_reaches_a_log(secret_transcript, bearer, caplog):
    caplog.set_level(logging.DEBUG)
    client = bearer("reviewer", write=True)
    client.get(f"/api/v1/e/local/messages/{q(secret_transcript)}?redact=false")
    client.get("/api/v1/e/local/sessions", {"q": f"{EMAIL} write"})
    client.get("/api/v1/e/local/sessions", {"q": "tag:nope"})
    Client(headers={"Authorization": f"Token {client.token}"}).get("/api/v1/endpoints")
    Client(headers={"Authorization": f"Bearer {client.token}x"}).get("/api/v1/endpoints")
    _post(
        client,
        f"/api/v1/e/local/deletion/{q(secret_transcript)}",
        {"reason": f"for {EMAIL}"},
        mint_key(),
    )
    logged = caplog.text + "".join(str(r.args) for r in caplog.records)
    secret = client.token.rsplit("_", 1)[-1] if False else client.token[len("hui_") + 13 :]
    assert caplog.records  # the requests were logged at all
    assert client.token not in logged and secret not in logged
    assert EMAIL not in logged and API_KEY not in logged and "write to" not in logged


@pytest.mark.django_db(transaction=True)
def test_an_executed_deletion_leaves_nothing_behind_any_route(peer_endpoint, bearer, login, users):
    sid = f"api-erase-{secrets.token_hex(4)}"
    make(peer_endpoint, sid, title="erase me", chat=True)
    index(peer_endpoint)
    tag = Tag.objects.create(name="erase-tag")
    rubric = Rubric.objects.create(name="erase")
    RubricVersion.objects.create(rubric=rubric, number=1, fields=[])
    queue = Queue.objects.create(
        **peer_endpoint.scope(), name="erase", rubric=rubric, any_reviewer=True
    )
    writer = bearer("reviewer", write=True)
    assert (
        _post(writer, f"/api/v1/e/local/tags/{sid}", {"tag": "erase-tag"}, mint_key()).status_code
        == 200
    )
    added = _post(
        writer,
        f"/api/v1/e/local/review/queues/{queue.pk}/items",
        {"session_ids": [sid]},
        mint_key(),
    )
    assert added.json()["added"] == 1
    reader = bearer("admin")
    before = _everything(reader, sid, tag, queue)
    assert all(sid in text for text in before.values()), before  # each route shows it first
    filed = _post(
        bearer("support", write=True),
        f"/api/v1/e/local/deletion/{sid}",
        {"reason": "erase"},
        mint_key(),
    )
    case = filed.json()["request_id"]
    assert decide(login("admin"), case).status_code == 302
    assert execute(login("admin2"), case).status_code == 302
    assert DeletionRequest.objects.get(pk=case).status == "executed"
    after = _everything(reader, sid, tag, queue)
    assert [route for route, text in after.items() if sid in text] == []


def _everything(client, sid, tag, queue) -> dict[str, str]:
    """What every read route answers about ``sid`` (the audit trail keeps ids by design)."""
    routes = {
        "search": f"/api/v1/e/local/sessions?q={sid}",
        "tagged": f"/api/v1/e/local/sessions?q=tag:{tag.name}",
        "queued": f"/api/v1/e/local/sessions?q=queue:{queue.name}",
        "session": f"/api/v1/e/local/session/{sid}",
        "messages": f"/api/v1/e/local/messages/{sid}",
        "lineage": f"/api/v1/e/local/lineage/{sid}",
        "dataset": f"/api/v1/e/local/review/queues/{queue.pk}/dataset?per=session",
    }
    found = {}
    for name, url in routes.items():
        answer = client.get(url)
        body = b"".join(answer.streaming_content) if answer.streaming else answer.content
        found[name] = body.decode() if answer.status_code == 200 else ""
    return found


def test_a_script_creates_renames_forks_chats_and_two_admins_delete(chat_db, peer_endpoint, bearer):
    """Issue 49's journey with two tokens: everything a page can write, by a script."""
    script, second = bearer("admin", write=True), bearer("admin2", write=True)
    sid = f"journey {secrets.token_hex(4)} %41 #x"
    made = _post(script, "/api/v1/e/local/sessions", {"session_id": sid}, mint_key())
    assert made.status_code == 201 and made.json()["id"] == sid
    title = f"Journey {sid[8:16]}"
    url = f"/api/v1/e/local/session/{q(sid)}"
    renamed = _post(script, url, {"title": title}, mint_key(), "patch")
    assert renamed.status_code == 200 and renamed.json()["title"] == title
    child = _post(script, f"/api/v1/e/local/fork/{q(sid)}", {}, mint_key())
    assert child.status_code == 201 and child.json()["parent_session_id"] == sid
    cid = child.json()["id"]
    turn = _post(script, f"/api/v1/e/local/chat/{q(cid)}", {"message": "hello script"}, mint_key())
    assert turn.status_code == 200, turn.content
    assert turn.json()["reply"]["content"] == "Echo: hello script"
    filed = _post(script, f"/api/v1/e/local/deletion/{q(cid)}", {"reason": "done"}, mint_key())
    assert filed.status_code == 201
    steps = f"/api/v1/e/local/deletions/{filed.json()['request_id']}"
    rule = {"policy_rule": "test_or_duplicate", "comment": "The script's own test session"}
    assert _post(script, steps + "/approve", rule, mint_key()).status_code == 403  # four eyes
    approved = _post(second, steps + "/approve", rule, mint_key())
    assert approved.status_code == 200 and approved.json()["state"] == "approved"
    executed = _post(second, steps + "/execute", {}, mint_key())
    assert executed.status_code == 200 and executed.json()["state"] == "executed"
    assert script.get(f"/api/v1/e/local/session/{q(cid)}").status_code == 404
