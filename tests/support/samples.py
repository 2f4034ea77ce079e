"""Payloads captured from the real hermes-agent 0.19.0 API server, as httpx responses."""

import json
from pathlib import Path

import httpx

SAMPLES = Path(__file__).parent.parent / "fixtures" / "hermes_samples"


def sample(name: str) -> dict:
    return json.loads((SAMPLES / f"{name}.json").read_text())


def raw_stream(name: str) -> bytes:
    return (SAMPLES / f"{name}_raw.txt").read_bytes()


def response(name: str) -> httpx.Response:
    """The captured response of sample ``name`` (status, content type and body)."""
    data = sample(name)
    body = data["body"]
    content_type = data["headers"].get("Content-Type", "application/json")
    content = body.encode() if isinstance(body, str) else json.dumps(body).encode()
    return httpx.Response(data["status"], headers={"Content-Type": content_type}, content=content)


class Recorder:
    """A MockTransport handler that answers from a route table and records requests."""

    def __init__(self, routes=None, default=None):
        self.routes = dict(routes or {})
        self.default = default
        self.requests: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        key = (request.method, request.url.raw_path.decode().split("?")[0])
        handler = self.routes.get(key, self.default)
        if handler is None:
            return httpx.Response(404, json={"error": {"code": "no_route", "message": "no route"}})
        if callable(handler):
            return handler(request)
        if isinstance(handler, str):
            return response(handler)
        return handler

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)


# Every mutation of the client, as a call on a client: never retried, always one request.
MUTATIONS = [
    lambda c: c.create_session(idempotency_key="k"),
    lambda c: c.patch_session("x", idempotency_key="k", title="t"),
    lambda c: c.fork_session("x", idempotency_key="k"),
    lambda c: c.delete_session("x", idempotency_key="k"),
    lambda c: c.chat("x", message="hi"),
]


def indexed_row(endpoint: str, session_id: str, source: str = "", **fields):
    """One row of the index as a sync leaves it (tests that reason about visibility)."""
    from django.utils import timezone

    from hermes_ui.index.models import IndexedSession

    now = timezone.now()
    return IndexedSession.objects.create(
        endpoint=endpoint,
        session_id=session_id,
        source=source,
        first_seen_at=now,
        last_seen_at=now,
        digest="d",
        **fields,
    )
