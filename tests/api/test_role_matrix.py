"""Every API route x every role, against the real peer: 401 without a token, 403 for a role
that may not, an answer for one that may. The rows mirror the pages' own matrix
(tests/deletion/test_role_matrix.py); ``test_every_route_has_a_row`` fails for a new route
until it gets one."""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass, field

import pytest
from django.test import Client

from devtools.peer import demo_ids as ids
from hermes_ui.api import urls
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.audit.models import IdempotencyRecord
from hermes_ui.background.jobs.models import Job
from hermes_ui.chat.models import Turn
from hermes_ui.deletion import approval
from hermes_ui.deletion import request as deletion_request
from hermes_ui.review.models import Queue, Rubric
from hermes_ui.tags.models import Tag
from tests.review.filters_rules_export.made import item
from tests.support.peers import make

pytestmark = [pytest.mark.peer, pytest.mark.django_db]

ROLES = ("anonymous", "support", "reviewer", "admin")
ANY = ("support", "reviewer", "admin")
REVIEWER_UP = ("reviewer", "admin")
ADMIN = ("admin",)
SID = ids.TOOL_SESSION
RULE = {"policy_rule": "owner_request", "comment": "matrix"}


@dataclass(frozen=True)
class Row:
    name: str  # the route's URL name
    method: str
    url: str  # {queue} is filled in
    allowed: tuple[str, ...]
    body: dict = field(default_factory=dict)
    refused: int = 403  # 404 where what is not yours is as missing (jobs, outcome keys)
    answered: tuple[int, ...] = ()  # an allowed status outside 2xx

    @property
    def id(self) -> str:
        return f"{self.method} {self.name}"


MATRIX = [
    Row("endpoint_list", "GET", "/api/v1/endpoints", ANY),
    Row("search", "GET", "/api/v1/e/local/sessions?q=kind:root", ANY),
    Row("session", "GET", f"/api/v1/e/local/session/{SID}", ANY),
    Row("messages", "GET", f"/api/v1/e/local/messages/{SID}", ANY),
    Row("lineage", "GET", f"/api/v1/e/local/lineage/{SID}", ANY),
    Row("queue_list", "GET", "/api/v1/e/local/review/queues", REVIEWER_UP),
    Row("queue_detail", "GET", "/api/v1/e/local/review/queues/{queue}", REVIEWER_UP),
    Row("queue_dataset", "GET", "/api/v1/e/local/review/queues/{queue}/dataset", ANY),
    Row("usage", "GET", "/api/v1/e/local/usage?days=7&group=model", ANY),
    Row("audit_events", "GET", "/api/v1/audit", ADMIN),
    Row("tag_add", "POST", f"/api/v1/e/local/tags/{SID}", REVIEWER_UP, {"tag": "matrix"}),
    Row("tag_remove", "DELETE", f"/api/v1/e/local/tags/{SID}", REVIEWER_UP, {"tag": "matrix"}),
    Row(
        "queue_add",
        "POST",
        "/api/v1/e/local/review/queues/{queue}/items",
        REVIEWER_UP,
        {"session_ids": [SID]},
    ),
    Row("deletion_ask", "POST", f"/api/v1/e/local/deletion/{SID}", ANY, {"reason": "matrix"}),
    # Issue 49's writes, each on a session of its own ({fresh}: the reads stay on the seed).
    Row("create_session", "POST", "/api/v1/e/local/sessions", REVIEWER_UP),
    Row("patch_session", "PATCH", "/api/v1/e/local/session/{fresh}", ANY, {"title": None}),
    Row("fork_session", "POST", "/api/v1/e/local/fork/{fresh}", REVIEWER_UP),
    # An empty message is refused after the role (a turn is tests/api/test_api_chat.py's).
    Row("chat_turn", "POST", "/api/v1/e/local/chat/{fresh}", ANY, {"message": ""}, 403, (400,)),
    Row("turn_events", "GET", "/api/v1/e/local/turns/{turn}/events", ANY),
    # The case was requested by support: admins and the requester see it.
    Row("deletion_get", "GET", "/api/v1/e/local/deletions/{case}", ("support", "admin")),
    Row("deletion_approve", "POST", "/api/v1/e/local/deletions/{case}/approve", ADMIN, RULE),
    Row(
        "deletion_reject",
        "POST",
        "/api/v1/e/local/deletions/{case}/reject",
        ADMIN,
        {"reason": "matrix", "policy_rule": "insufficient_reason"},
    ),
    Row("deletion_execute", "POST", "/api/v1/e/local/deletions/{approved}/execute", ADMIN),
    Row("note_add", "POST", "/api/v1/e/local/notes/{fresh}", ANY, {"text": "matrix"}),
    Row(
        "review_labels",
        "POST",
        "/api/v1/e/local/review/items/{item}/labels",
        REVIEWER_UP,
        {"labels": {}},
    ),
    Row(
        "bulk_close",
        "POST",
        "/api/v1/e/local/bulk/close",
        ANY,
        {"session_ids": ["{fresh}"], "end_reason": "resolved"},
    ),
    Row("job_get", "GET", "/api/v1/jobs/{job}", ("support", "admin"), refused=404),
    Row("outcome_get", "GET", "/api/v1/outcomes/{key}", ("support",), refused=404),
]


@pytest.fixture
def api_world(request, peer_endpoint, users):
    """What ``row`` names: the seed's session and a queue, and for the writes only
    (their names in its URL or body), a session, deletion cases, a turn, a job, a key."""
    Tag.objects.create(name="matrix")
    rubric = Rubric.objects.filter(is_default=True).first() or Rubric.objects.create(name="r")
    queue = Queue.objects.create(
        **peer_endpoint.scope(),
        name="matrix",
        rubric=rubric,
        owner=users["admin"],
        any_reviewer=True,
    )
    world: dict = {"queue": queue.pk}
    row = getattr(request.node, "callspec", None) and request.node.callspec.params.get("row")
    named = row.url + json.dumps(row.body) if row else ""
    if "{" not in named.replace("{queue}", ""):
        return world
    world["fresh"] = fresh = f"matrix-{secrets.token_hex(4)}"
    make(peer_endpoint, fresh)
    support = users["support"]
    if "{case}" in named:
        world["case"] = deletion_request.create(peer_endpoint, fresh, support, "matrix")[0].pk
    if "{approved}" in named:
        case, _ = deletion_request.create(peer_endpoint, fresh, support, "matrix")
        approval.decide(case, users["admin2"], approval.APPROVE, "owner_request", "matrix")
        world["approved"] = case.pk
    if "{turn}" in named:
        world["turn"] = Turn.objects.create(
            **peer_endpoint.scope(),
            requested_session_id=fresh,
            target_session_id=fresh,
            user=support,
            form_key="m" * 40,
            state="completed",
            message="hello",
            answer="Echo: hello",
        ).pk
    if "{item}" in named:
        world["item"] = item(queue, fresh).pk
    if "{job}" in named:
        job = Job.objects.create(kind="bulk_close", user=support, **peer_endpoint.scope())
        world["job"] = job.pk
    if "{key}" in named:
        world["key"] = key = mint_key()
        IdempotencyRecord.objects.create(
            capability="api.patch_session",
            endpoint=peer_endpoint.id,
            key=f"{key}.matrix",
            user=support,
            outcome="success",
        )
    return world


def call(client: Client, row: Row, api_world: dict):
    url = row.url.format(**api_world)
    if row.method == "GET":
        return client.get(url)
    send = {"POST": client.post, "PATCH": client.patch, "DELETE": client.delete}[row.method]
    body = json.loads(json.dumps(row.body).replace("{fresh}", api_world.get("fresh", "")))
    return send(url, body, content_type="application/json", headers={"Idempotency-Key": mint_key()})


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("row", MATRIX, ids=lambda row: row.id)
def test_role_matrix(row: Row, role: str, api_world, bearer):
    client = Client() if role == "anonymous" else bearer(role, write=True)
    answer = call(client, row, api_world)
    assert answer["Content-Type"].startswith("application/json") or answer.status_code == 200
    if role == "anonymous":
        assert answer.status_code == 401, f"{row.id}: anonymous got {answer.status_code}"
        assert answer.json()["code"] == "unauthorized"
    elif role in row.allowed:
        assert 200 <= answer.status_code < 300 or answer.status_code in row.answered, (
            f"{row.id}: {role} should be allowed, got {answer.status_code} {answer.content[:200]}"
        )
    else:
        assert answer.status_code == row.refused, (
            f"{row.id}: {role} should be refused, got {answer.status_code}"
        )
        assert answer.json()["code"] == ("forbidden" if row.refused == 403 else "not_found")


@pytest.mark.parametrize("row", [r for r in MATRIX if r.method != "GET"], ids=lambda r: r.id)
def test_a_read_only_token_cannot_write(row: Row, api_world, bearer):
    answer = call(bearer("admin", write=False), row, api_world)
    assert answer.status_code == 403
    assert answer.json()["code"] == "read_only_token"


def test_a_logged_in_browser_is_not_a_token(login, api_world):
    """No session cookie reaches the API: a signed-in admin's browser gets a 401."""
    answer = login("admin").get("/api/v1/endpoints")
    assert answer.status_code == 401


def test_every_route_has_a_row():
    (api,) = [p for p in urls.urlpatterns if getattr(p, "namespace", "") == "api_v1"]
    routes = {p.name for p in api.url_patterns} - {"openapi-json", "openapi-view", "api-root"}
    assert routes - {row.name for row in MATRIX} == set()
