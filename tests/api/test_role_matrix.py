"""Every API route x every role, against the real peer: 401 without a token, 403 for a role
that may not, an answer for one that may. The rows mirror the pages' own matrix
(tests/deletion/test_role_matrix.py); ``test_every_route_has_a_row`` fails for a new route
until it gets one."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from devtools.peer import demo_ids as ids
from hermes_ui.api import urls
from hermes_ui.audit.idempotency import mint_key
from hermes_ui.review.models import Queue, Rubric
from hermes_ui.shares.models import Share
from hermes_ui.tags.models import Tag

pytestmark = [pytest.mark.peer, pytest.mark.django_db]

ROLES = ("anonymous", "support", "reviewer", "admin")
ANY = ("support", "reviewer", "admin")
REVIEWER_UP = ("reviewer", "admin")
ADMIN = ("admin",)
SID = ids.TOOL_SESSION


@dataclass(frozen=True)
class Row:
    name: str  # the route's URL name
    method: str
    url: str  # {queue} is filled in
    allowed: tuple[str, ...]
    body: dict = field(default_factory=dict)

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
    Row("share_create", "POST", f"/api/v1/e/local/shares/{SID}", ANY, {"kind": "inside"}),
    Row("share_list", "GET", "/api/v1/shares", ANY),
    # admin2's link: its sharer or an admin of the endpoint revokes it.
    Row("share_revoke", "POST", "/api/v1/shares/{share}/revoke", ADMIN),
]


@pytest.fixture
def api_world(peer_endpoint, users):
    Tag.objects.create(name="matrix")
    rubric = Rubric.objects.filter(is_default=True).first() or Rubric.objects.create(name="r")
    queue = Queue.objects.create(
        **peer_endpoint.scope(),
        name="matrix",
        rubric=rubric,
        owner=users["admin"],
        any_reviewer=True,
    )
    share = Share.objects.create(
        **peer_endpoint.scope(),
        session_id=SID,
        source="cli",
        digest="matrix",
        created_by=users["admin2"],
        created_by_name="admin2",
        expires_at=timezone.now() + timedelta(days=1),
    )
    return {"queue": queue.pk, "share": share.pk}


def call(client: Client, row: Row, api_world: dict):
    url = row.url.format(**api_world)
    if row.method == "GET":
        return client.get(url)
    send = client.post if row.method == "POST" else client.delete
    return send(
        url, row.body, content_type="application/json", headers={"Idempotency-Key": mint_key()}
    )


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
        assert 200 <= answer.status_code < 300, (
            f"{row.id}: {role} should be allowed, got {answer.status_code} {answer.content[:200]}"
        )
    else:
        assert answer.status_code == 403, (
            f"{row.id}: {role} should be refused, got {answer.status_code}"
        )
        assert answer.json()["code"] == "forbidden"


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
