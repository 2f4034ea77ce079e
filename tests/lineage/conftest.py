"""Lineage/index fixtures: a small in-memory Hermes behind httpx.MockTransport.

The fake answers the two calls the index makes (``GET /api/sessions`` with
``limit``/``offset``/``include_children`` and ``GET /api/sessions/{id}``)
with the provider's rules as far as the index can observe them: newest
activity first, delegates and continuations hidden from the default list,
compression roots projected to their tip, archived rows never listed,
delete cascading to delegates and clearing the parent of the rest. Real
behaviour is covered again against the real peer in the *_peer tests.
"""

from __future__ import annotations

import json
from urllib.parse import unquote

import httpx
import pytest

from hermes_ui.hermes.client import use_transport
from hermes_ui.lineage import render


class FakeHermes:
    def __init__(self):
        self.rows: dict[str, dict] = {}
        self.markers: dict[str, str] = {}  # id -> "branch" | "delegate" (hidden by the API)
        self.archived: set[str] = set()
        self.requests: list[httpx.Request] = []
        self.fail_list_after: int | None = None  # answer 503 after this many list calls

    # -- seeding -----------------------------------------------------------
    def add(self, session_id, *, at, parent=None, marker=None, **fields):
        row = {"id": session_id, "source": "cli", "title": None, "parent_session_id": parent,
               "started_at": at, "ended_at": None, "end_reason": None, "message_count": 2,
               "last_active": at, "preview": f"preview of {session_id}", **fields}  # fmt: skip
        self.rows[session_id] = row
        if marker:
            self.markers[session_id] = marker
        return row

    def end(self, session_id, reason, at):
        self.rows[session_id].update(end_reason=reason, ended_at=at)

    def delete(self, session_id):
        doomed = [session_id]
        for row_id in doomed:  # grows while walking: delegates of delegates too
            doomed += [
                child
                for child, marker in self.markers.items()
                if marker == "delegate"
                and self.rows.get(child, {}).get("parent_session_id") == row_id
            ]
        for row_id in doomed:
            self.rows.pop(row_id, None)
        for row in self.rows.values():
            if row["parent_session_id"] in doomed:
                row["parent_session_id"] = None

    # -- provider rules ----------------------------------------------------
    def _listable(self, row) -> bool:
        if row["id"] in self.archived or self.markers.get(row["id"]) == "delegate":
            return False
        parent = self.rows.get(row["parent_session_id"] or "")
        if row["parent_session_id"] is None or self.markers.get(row["id"]) == "branch":
            return True
        return bool(parent and parent["end_reason"] == "branched"
                    and row["started_at"] >= (parent["ended_at"] or 0))  # fmt: skip

    def _tip(self, row) -> dict:
        while row["end_reason"] == "compression":
            kids = [r for r in self.rows.values() if r["parent_session_id"] == row["id"]
                    and r["id"] not in self.markers]  # fmt: skip
            if not kids:
                break
            row = max(kids, key=lambda r: r["last_active"])
        return row

    def listing(self, include_children: bool) -> list[dict]:
        rows = [r for r in self.rows.values() if r["id"] not in self.archived]
        if not include_children:
            rows = [r for r in rows if self._listable(r)]
        rows.sort(key=lambda r: (r["last_active"], r["id"]), reverse=True)
        if include_children:
            return [dict(r) for r in rows]
        shown = []
        for row in rows:
            tip = self._tip(row)
            shown.append(dict(row) if tip is row else {**tip, "_lineage_root_id": row["id"]})
        return shown

    # -- transport ---------------------------------------------------------
    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.raw_path.decode().split("?")[0]
        if path == "/api/sessions":
            if self.fail_list_after is not None and self.list_calls > self.fail_list_after:
                return httpx.Response(503, json={"error": {"code": "session_db_unavailable"}})
            params = request.url.params
            limit, offset = int(params.get("limit", 50)), int(params.get("offset", 0))
            rows = self.listing(params.get("include_children") == "true")[offset : offset + limit]
            body = {"object": "list", "data": rows, "limit": limit, "offset": offset,
                    "has_more": len(rows) == limit}  # fmt: skip
            return httpx.Response(200, json=body)
        session_id = unquote(path.removeprefix("/api/sessions/"))
        row = self.rows.get(session_id)
        if row is None:
            body = {"error": {"code": "session_not_found", "message": "Session not found"}}
            return httpx.Response(404, json=body)
        safe = {k: v for k, v in row.items() if k not in ("preview", "last_active")}
        return httpx.Response(200, content=json.dumps({"object": "hermes.session",
                                                       "session": safe}))  # fmt: skip

    @property
    def list_calls(self) -> int:
        return sum(1 for r in self.requests if r.url.path == "/api/sessions")

    @property
    def get_calls(self) -> int:
        return sum(1 for r in self.requests if r.url.path != "/api/sessions")

    def reset_counts(self):
        self.requests.clear()


@pytest.fixture
def fake_hermes(mock_endpoint):
    fake = FakeHermes()
    with use_transport(httpx.MockTransport(fake)):
        yield fake


@pytest.fixture(autouse=True)
def isolated_svg_cache(settings, tmp_path):
    """Each test starts with an empty SVG cache in its own folder."""
    settings.DATA_DIR = tmp_path / "data"
    render.clear_memory()
    yield
    render.clear_memory()
