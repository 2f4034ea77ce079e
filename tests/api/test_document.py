"""The OpenAPI document: served to anyone (a token or none), and every operation declares
what the shared code can answer; session ids with ``%``, ``#``, spaces and ``/`` travel
percent-encoded through the API to the real Hermes and back."""

from __future__ import annotations

import json
from urllib.parse import quote

import pytest
from django.test import Client

from devtools.peer import demo_ids
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.lineage.graph.classify import KINDS
from hermes_ui.tags.models import Tag

pytestmark = pytest.mark.django_db

WRITES = {"post", "put", "patch", "delete"}
ERROR = {"$ref": "#/components/schemas/Error"}


def _document() -> dict:
    answer = Client().get("/api/v1/openapi.json")
    assert answer.status_code == 200
    return answer.json()


def _operations(document: dict):
    for path, methods in document["paths"].items():
        for method, operation in methods.items():
            yield path, method, operation


def test_the_document_is_served_to_a_token_and_to_no_one_the_docs_page_is_not(bearer):
    with_token = bearer("support").get("/api/v1/openapi.json")
    assert with_token.status_code == 200, with_token.status_code
    assert with_token.json()["info"]["title"] == "Hermes UI API"
    assert Client().get("/api/v1/openapi.json").json() == with_token.json()
    docs = Client().get("/api/v1/docs")
    assert docs.status_code == 302 and docs["Location"].startswith("/accounts/login/")


def test_no_key_is_written_twice():
    """ninja keys responses by int: a "200" beside 200 made a JSON object with a key twice,
    which swagger-ui refuses to parse."""

    def once(pairs):
        keys = [name for name, _ in pairs]
        assert len(keys) == len(set(keys)), keys
        return dict(pairs)

    json.loads(Client().get("/api/v1/openapi.json").content, object_pairs_hook=once)


def test_every_operation_declares_its_failures_security_and_keys():
    document = _document()
    scheme = document["components"]["securitySchemes"]["TokenAuth"]
    assert (scheme["type"], scheme["scheme"]) == ("http", "bearer")
    assert set(document["components"]["schemas"]["Error"]["required"]) == {"code", "message"}
    seen = 0
    for path, method, operation in _operations(document):
        where = f"{method.upper()} {path}"
        seen += 1
        assert operation["security"] == [{"TokenAuth": []}], where
        responses = operation["responses"]
        expected = {"401", "403", "429"}
        if "{" in path:
            expected.add("404")
        if method in WRITES:
            expected |= {"400", "409", "422"}
        if "{endpoint}" in path:
            expected |= {"502", "503", "504"}
        assert expected <= set(responses), (where, sorted(responses))
        for status, answer in responses.items():
            if int(status) >= 400:
                assert answer["content"]["application/json"]["schema"] == ERROR, (where, status)
        assert responses["429"]["headers"]["Retry-After"]["required"] is True, where
        assert "WWW-Authenticate" in responses["401"]["headers"], where
        keys = [p for p in operation.get("parameters", []) if p["name"] == "Idempotency-Key"]
        if method in WRITES:
            assert len(keys) == 1 and keys[0]["in"] == "header" and keys[0]["required"], where
        else:
            assert keys == [], where
        for parameter in operation.get("parameters", []):
            if parameter["name"] == "session_id":
                assert "percent-encode `/`, `%`, space and `#`" in parameter["description"]
    assert seen >= 14


def test_paging_and_the_reads_rules_are_declared():
    paths = _document()["paths"]
    for path in ("/api/v1/e/{endpoint}/sessions", "/api/v1/audit"):
        ok = paths[path]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
        assert ok == {"$ref": "#/components/schemas/Page"}, path
    search = {
        p["name"]: p["schema"] for p in paths["/api/v1/e/{endpoint}/sessions"]["get"]["parameters"]
    }
    assert (search["limit"]["minimum"], search["limit"]["maximum"]) == (1, 200)
    assert set(search["kind"]["enum"]) == {"", *KINDS}  # the index's kinds, all of them
    assert set(search["within"]["enum"]) == {"titles", "transcripts"}
    usage = {p["name"]: p for p in paths["/api/v1/e/{endpoint}/usage"]["get"]["parameters"]}
    assert set(usage["group"]["schema"]["enum"]) == {"source", "model", "endpoint"}


def test_the_declared_date_format_is_all_a_date_parameter_takes(bearer):
    client = bearer("admin")
    assert client.get("/api/v1/audit", {"since": "2026-12-01"}).status_code == 200
    refused = client.get("/api/v1/audit", {"since": "0"})
    assert refused.status_code == 400 and refused.json()["code"] == "bad_request"


def test_an_unknown_api_path_answers_json_to_a_post_and_a_line_break(bearer):
    client = bearer("admin", write=True)
    checked = Client(enforce_csrf_checks=True, headers={"Authorization": f"Bearer {client.token}"})
    posted = checked.post("/api/v1/e/local/review/queues/x/items", {}, "application/json")
    assert (posted.status_code, posted["Content-Type"]) == (404, "application/json")
    broken = client.get("/api/v1/e/local/session/a%0Ab")
    assert broken.status_code == 404 and broken.json()["code"] == "not_found"


@pytest.mark.peer
@pytest.mark.parametrize("session_id", [demo_ids.ODD_ID, demo_ids.UNICODE_ID])
def test_odd_seeded_ids_travel_percent_encoded(peer_endpoint, bearer, session_id):
    """The demo seed's adversarial ids (``%41``, ``#``, ``?``, ``+``, spaces; non-ASCII)
    read and tagged through the API, encoded as the document says."""
    Tag.objects.create(name="odd")
    client = bearer("admin", write=True)
    encoded = quote(session_id, safe="")
    read = client.get(f"/api/v1/e/local/session/{encoded}")
    assert read.status_code == 200, read.content[:200]
    assert read.json()["session"]["id"] == session_id
    transcript = client.get(f"/api/v1/e/local/messages/{encoded}")
    assert transcript.status_code == 200 and transcript.json()["data"]
    tagged = client.post(
        f"/api/v1/e/local/tags/{encoded}",
        {"tag": "odd"},
        "application/json",
        headers={"Idempotency-Key": mint_key()},
    )
    assert tagged.status_code == 200 and tagged.json()["session_id"] == session_id


@pytest.mark.peer
def test_a_slash_in_an_id_reaches_hermes_as_one_id(peer_endpoint, bearer):
    """``a/b`` encoded as ``a%2Fb`` is the session route's id, not two path segments: Hermes
    itself answers that it has no such session."""
    answer = bearer("admin").get("/api/v1/e/local/session/" + quote("no/such id#1", safe=""))
    assert answer.status_code == 404
    assert answer.json()["code"] == "session_not_found"


def test_a_database_outage_is_a_503_to_retry_and_a_large_body_a_413(bearer, monkeypatch, settings):
    """The two answers the document adds for every route: not a 500 either time."""
    from django.db import OperationalError

    from hermes_ui.api.routes import endpoints

    def locked(*args, **kwargs):
        raise OperationalError("database is locked")

    monkeypatch.setattr(endpoints.probes, "recent", locked)
    busy = bearer("admin").get("/api/v1/endpoints")
    assert (busy.status_code, busy.json()["code"]) == (503, "database_unavailable")
    assert busy["Retry-After"] == "5"
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1000
    large = bearer("admin", write=True).post(
        "/api/v1/e/local/tags/x",
        {"tag": "x" * 2000},
        "application/json",
        headers={"Idempotency-Key": mint_key()},
    )
    assert (large.status_code, large.json()["code"]) == (413, "too_large")


def _refuses_nul(schema: dict) -> bool:
    """Whether every string ``schema`` admits is declared without NUL."""
    import re

    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[1]
        return _refuses_nul(_document()["components"]["schemas"][name])
    if "anyOf" in schema:
        return all(_refuses_nul(s) for s in schema["anyOf"] if s.get("type") != "null")
    if schema.get("type") == "array":
        return _refuses_nul(schema["items"])
    if "enum" in schema:
        return "\x00" not in schema["enum"]
    return "pattern" in schema and not re.search(schema["pattern"], "a\x00b")


# Each body field a form reads as text, a NUL in it, and the rest of a body the form
# would take: a NUL is refused (Django's CharField), so the document must say so, or a
# client (and Schemathesis) sends what it declares valid and gets a 400.
NUL_FIELDS = [
    ("post", "sessions", "CreateBody", {}, "title"),
    ("post", "sessions", "CreateBody", {}, "session_id"),
    ("post", "sessions", "CreateBody", {}, "model"),
    ("post", "sessions", "CreateBody", {}, "system_prompt"),
    ("patch", "session/s1", "PatchBody", {}, "title"),
    ("post", "fork/s1", "ForkBody", {}, "title"),
    ("post", "fork/s1", "ForkBody", {}, "child_id"),
    ("post", "chat/s1", "ChatBody", {"message": "hi"}, "system_message"),
]


@pytest.mark.parametrize(("method", "path", "schema", "rest", "field"), NUL_FIELDS)
def test_a_nul_the_forms_refuse_is_declared_refused(
    bearer, mock_endpoint, method, path, schema, rest, field
):
    declared = _document()["components"]["schemas"][schema]["properties"][field]
    client = bearer("admin", write=True)
    answer = getattr(client, method)(
        f"/api/v1/e/local/{path}",
        {**rest, field: "a\x00b"},
        content_type="application/json",
        headers={"Idempotency-Key": mint_key()},
    )
    assert answer.status_code in {400, 422}, (answer.status_code, answer.content[:300])
    assert _refuses_nul(declared), declared
