"""The API asks the one rule (hermes_ui.access): per endpoint, per source, per token.

Two endpoints, ``eu`` and ``us``, over the fake Hermes. Every route of the OpenAPI
document that names an endpoint answers a person without a grant there exactly as
for an endpoint nobody configured; a source-limited person gets Hermes' own "not
found" for a session of another source; a token limited to ``eu`` cannot reach
``us`` though its owner may; taking grants away stops tokens at the next request.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from hermes_ui.access import grants
from hermes_ui.api.main import api
from hermes_ui.api_tokens import tokens
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import AuditEvent, Outcome
from hermes_ui.audit.trail import record
from hermes_ui.hermes.client import use_transport
from hermes_ui.index.models import IndexedSession
from hermes_ui.platform.endpoints import Endpoint
from tests.conftest import TEST_KEY
from tests.support.fakes import FakeHermes

pytestmark = pytest.mark.django_db

SECRET = "secret-telegram-1"  # a session of the source the limited person may not see
CRON = "visible-cron-1"


@pytest.fixture
def api_hermes():
    fake = FakeHermes()
    for sid, source in ((SECRET, "telegram"), (CRON, "cron")):
        fake.add(sid, source=source, title=f"title of {sid}")
    with use_transport(fake.transport):
        yield fake


@pytest.fixture
def api_endpoints(settings, api_hermes):
    settings.HERMES_ENDPOINTS = {
        "eu": Endpoint("eu", "http://eu.test", TEST_KEY),
        "us": Endpoint("us", "http://us.test", TEST_KEY),
    }
    settings.HERMES_ENDPOINT_ID = "eu"
    now = timezone.now()
    for sid, source in ((SECRET, "telegram"), (CRON, "cron")):
        IndexedSession.objects.create(
            endpoint="eu",
            session_id=sid,
            source=source,
            first_seen_at=now,
            last_seen_at=now,
            digest="d",
        )


@pytest.fixture
def api_person(db, django_user_model):
    return django_user_model.objects.create_user("pat", password="a-long-password-1")


def bearer(user, **options) -> Client:
    _, plain = tokens.issue(user, "test", write=True, **options)
    return Client(headers={"Authorization": f"Bearer {plain}"})


def _body(schema: dict, components: dict):
    """The smallest JSON body the route's schema accepts (so the door, not the body
    check, answers)."""
    if "$ref" in schema:
        schema = components[schema["$ref"].rsplit("/", 1)[-1]]
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {
            name: _body(schema["properties"][name], components)
            for name in schema.get("required", ())
        }
    if kind == "array":
        return [_body(schema.get("items", {"type": "string"}), components)]
    if kind == "integer":
        return 1
    if "anyOf" in schema:
        return _body(schema["anyOf"][0], components)
    return "x"


def endpoint_routes() -> list[tuple[str, str, object]]:
    """(method, path template, body) of every API route whose path names an endpoint."""
    document = api.get_openapi_schema(path_prefix="/api/v1")
    components = document.get("components", {}).get("schemas", {})
    found = []
    for path, operations in document["paths"].items():
        if "{endpoint}" not in path:
            continue
        for method, operation in operations.items():
            body = None
            if "requestBody" in operation:
                content = operation["requestBody"]["content"]["application/json"]
                body = _body(content["schema"], components)
            found.append((method.upper(), path, body))
    return found


def call(client: Client, method: str, url: str, body=None):
    if method == "GET":
        return client.get(url)
    send = {"POST": client.post, "DELETE": client.delete, "PUT": client.put, "PATCH": client.patch}[
        method
    ]
    return send(
        url, body or {}, content_type="application/json", headers={"Idempotency-Key": mint_key()}
    )


def url_of(path: str, endpoint: str, session_id: str = CRON) -> str:
    ids = dict(queue_id=1, turn_id=1, request_id=1, item_id=1)
    return path.format(endpoint=endpoint, session_id=session_id, **ids)


def test_the_walk_finds_every_endpoint_route():
    paths = {path for _, path, _ in endpoint_routes()}
    assert len(paths) >= 9
    assert "/api/v1/e/{endpoint}/session/{session_id}" in paths
    assert "/api/v1/e/{endpoint}/review/queues/{queue_id}/items" in paths


def test_every_route_of_an_endpoint_without_a_grant_answers_as_an_unknown_one(
    api_endpoints, api_person
):
    grants.grant("eu", "admin", user=api_person)
    client = bearer(api_person)
    for method, path, body in endpoint_routes():
        hidden = call(client, method, url_of(path, "us"), body)
        unknown = call(client, method, url_of(path, "nowhere"), body)
        where = f"{method} {path}"
        assert hidden.status_code == unknown.status_code == 404, where
        assert hidden["Content-Type"] == unknown["Content-Type"], where
        assert hidden.content.replace(b"'us'", b"'nowhere'") == unknown.content, where
        assert b"title of" not in hidden.content, where


def test_a_session_of_another_source_answers_as_one_hermes_does_not_have(
    api_endpoints, api_person, api_hermes
):
    grants.grant("eu", "admin", ["cron"], user=api_person)
    limited = bearer(api_person)
    everyone = bearer(_admin(api_person))
    missing = everyone.get("/api/v1/e/eu/session/gone-1")
    assert missing.status_code == 404
    session_routes = [r for r in endpoint_routes() if "{session_id}" in r[1]]
    assert len(session_routes) >= 5
    asked = len(api_hermes.requests)
    for method, path, body in session_routes:
        answer = call(limited, method, url_of(path, "eu", SECRET), body)
        assert answer.status_code == 404, f"{method} {path}"
        assert answer.content == missing.content, f"{method} {path}"
    assert len(api_hermes.requests) == asked  # refused at the door: Hermes was never asked
    (listed,) = limited.get("/api/v1/endpoints").json()["data"]
    assert listed["id"] == "eu" and listed["index"]["sessions"] is None  # not theirs to count
    seen = limited.get(f"/api/v1/e/eu/session/{CRON}")
    assert seen.status_code == 200 and seen.json()["session"]["id"] == CRON


def test_a_queue_write_naming_a_hidden_session_is_refused(api_endpoints, api_person, settings):
    from hermes_ui.review.models import Queue, Rubric

    grants.grant("eu", "reviewer", ["cron"], user=api_person)
    rubric = Rubric.objects.filter(is_default=True).first() or Rubric.objects.create(name="r")
    queue = Queue.objects.create(
        **settings.HERMES_ENDPOINTS["eu"].scope(), name="q", rubric=rubric, any_reviewer=True
    )
    url = f"/api/v1/e/eu/review/queues/{queue.pk}/items"
    answer = call(bearer(api_person), "POST", url, {"session_ids": [CRON, SECRET]})
    assert answer.status_code == 404
    assert answer.json()["code"] == "session_not_found"
    assert not queue.items.exists()


def _admin(person):
    from django.contrib.auth import get_user_model

    admin = get_user_model().objects.create_user("root")
    grants.set_role(admin, "admin")
    return admin


def test_a_token_limited_to_one_endpoint_cannot_reach_another(api_endpoints, api_person):
    grants.grant("*", "reviewer", user=api_person)
    limited = bearer(api_person, endpoints=["eu"])
    whole = bearer(api_person)
    assert whole.get("/api/v1/e/us/review/queues").status_code == 200
    hidden = limited.get("/api/v1/e/us/review/queues")
    unknown = limited.get("/api/v1/e/nowhere/review/queues")
    assert hidden.status_code == 404
    assert hidden.content.replace(b"'us'", b"'nowhere'") == unknown.content
    assert limited.get("/api/v1/e/eu/review/queues").status_code == 200
    listed = [row["id"] for row in limited.get("/api/v1/endpoints").json()["data"]]
    assert listed == ["eu"]
    assert [row["id"] for row in whole.get("/api/v1/endpoints").json()["data"]] == ["eu", "us"]


def test_a_token_can_only_be_limited_to_endpoints_its_owner_sees(api_endpoints, api_person):
    grants.grant("eu", "support", user=api_person)
    with pytest.raises(ValueError, match="may not see the endpoint 'us'"):
        tokens.issue(api_person, "x", endpoints=["us"])


def test_taking_grants_away_stops_the_token_at_the_next_request(api_endpoints, api_person):
    grants.grant("eu", "reviewer", user=api_person)
    grants.grant("us", "reviewer", user=api_person)
    whole, only_us = bearer(api_person), bearer(api_person, endpoints=["us"])
    assert whole.get("/api/v1/e/eu/review/queues").status_code == 200
    grants.revoke("eu", user=api_person)
    grants.grant("eu", "support", user=api_person)
    assert whole.get("/api/v1/e/eu/review/queues").status_code == 403  # demoted there
    assert whole.get("/api/v1/e/us/review/queues").status_code == 200
    assert only_us.get("/api/v1/e/us/review/queues").status_code == 200
    grants.revoke("us", user=api_person)
    assert whole.get("/api/v1/e/us/review/queues").status_code == 404
    refused = only_us.get("/api/v1/e/us/review/queues")  # reaches no endpoint any more
    assert refused.status_code == 401 and refused.json()["code"] == "unauthorized"
    grants.revoke("eu", user=api_person)
    assert whole.get("/api/v1/endpoints").status_code == 401  # no grant anywhere


def test_the_audit_route_shows_only_entries_of_endpoints_one_administers(api_endpoints, api_person):
    for endpoint, session_id in (("eu", CRON), ("eu", SECRET), ("eu", ""), ("us", ""), ("", "")):
        record(
            None,
            capability=f"test.{endpoint or 'instance'}.{session_id or 'none'}",
            endpoint=endpoint,
            outcome=Outcome.SUCCESS,
            session_id=session_id,
        )
    grants.grant("eu", "admin", user=api_person)
    grants.grant("us", "support", user=api_person)

    def seen(client) -> set[str]:
        answer = client.get("/api/v1/audit")
        assert answer.status_code == 200
        return {e["capability"] for e in answer.json()["data"] if e["capability"][:5] == "test."}

    eu_all = {f"test.eu.{CRON}", f"test.eu.{SECRET}", "test.eu.none"}
    assert seen(bearer(api_person)) == eu_all
    grants.revoke("eu", user=api_person)
    grants.grant("eu", "admin", ["cron"], user=api_person)
    assert seen(bearer(api_person)) == {f"test.eu.{CRON}", "test.eu.none"}
    everything = eu_all | {"test.us.none", "test.instance.none"}
    assert seen(bearer(_admin(api_person))) == everything
    assert AuditEvent.objects.filter(capability__startswith="test.").count() == 5


def test_a_support_person_gets_no_audit(api_endpoints, api_person):
    grants.grant("*", "support", user=api_person)
    assert bearer(api_person).get("/api/v1/audit").status_code == 403


def test_support_on_one_endpoint_gets_masked_text_there_though_admin_elsewhere(
    api_endpoints, api_person
):
    grants.grant("eu", "admin", user=api_person)
    grants.grant("us", "support", user=api_person)
    client = bearer(api_person)
    for route in ("session", "messages"):
        eu = client.get(f"/api/v1/e/eu/{route}/{CRON}?redact=false").json()
        us = client.get(f"/api/v1/e/us/{route}/{CRON}?redact=false").json()
        assert (eu["masked"], us["masked"]) == (False, True), route
