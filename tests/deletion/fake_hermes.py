"""A small stateful stand-in for the sessions API, built from captured rows.

It answers list (both kinds), get, messages, patch and delete the way the
real 0.19.0 provider does for the rows of ``201_list_lineage_children``:
delete cascades to rows carrying the (hidden) delegate marker and orphans
every other child. Failures are injected per test. The real provider is
exercised by the ``test_peer_*`` modules; this keeps unit tests fast.
"""

from __future__ import annotations

import copy
import json
from urllib.parse import unquote

import httpx

from tests.samples import sample

LIST_ONLY = ("last_active", "preview")


class FakeHermes:
    def __init__(self):
        rows = sample("201_list_lineage_children")["body"]["data"]
        self.rows = {row["id"]: copy.deepcopy(row) for row in rows}
        # The marker the API hides: real delegates are tool-spawned subagents.
        self.delegate_of = {r["id"]: r["parent_session_id"] for r in rows
                            if r["source"] == "subagent"}  # fmt: skip
        self.messages = {
            sid: [{"id": i, "session_id": sid, "role": "user", "content": f"hello {sid} {i}",
                   "timestamp": 1795000000.0 + i} for i in (1, 2)]
            for sid in self.rows
        }  # fmt: skip
        self.fail_delete: str | int | None = None  # "timeout", "lost_answer", or a status
        self.calls: list[tuple[str, str]] = []

    # -- the transport --------------------------------------------------------

    def __call__(self, request: httpx.Request) -> httpx.Response:
        path = request.url.raw_path.decode().split("?")[0]
        self.calls.append((request.method, path))
        if path == "/api/sessions":
            return self._list(request)
        parts = path.removeprefix("/api/sessions/").split("/")
        sid = unquote(parts[0])
        suffix = parts[1] if len(parts) > 1 else ""
        if request.method == "DELETE":
            return self._delete(request, sid)
        if sid not in self.rows:
            return _not_found()
        if suffix == "messages":
            return httpx.Response(200, json={"object": "list", "session_id": sid,
                                             "data": self.messages[sid]})  # fmt: skip
        if request.method == "PATCH":
            self.rows[sid].update(json.loads(request.content))
        return httpx.Response(200, json={"object": "hermes.session", "session": self.get(sid)})

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    # -- state ----------------------------------------------------------------

    def get(self, sid: str) -> dict:
        return {k: v for k, v in self.rows[sid].items() if k not in LIST_ONLY}

    def add(self, sid: str, *, parent: str | None = None, source: str = "cli", **fields) -> None:
        self.rows[sid] = {"id": sid, "source": source, "title": None, "parent_session_id": parent,
                          "started_at": 1796300000.0, "ended_at": None, "end_reason": None,
                          "message_count": 0, "last_active": 1796300000.0, **fields}  # fmt: skip
        self.messages[sid] = []
        if source == "subagent":
            self.delegate_of[sid] = parent

    def chat(self, sid: str) -> None:
        """A turn lands: two more active messages and a bigger count."""
        n = len(self.messages[sid])
        self.messages[sid] += [{"id": 900 + n, "session_id": sid, "role": "user", "content": "x"},
                               {"id": 901 + n, "session_id": sid, "role": "assistant",
                                "content": "Echo: x"}]  # fmt: skip
        self.rows[sid]["message_count"] = (self.rows[sid].get("message_count") or 0) + 2

    def _listable(self, row: dict) -> bool:
        if row["id"] in self.delegate_of:
            return False
        parent = self.rows.get(row.get("parent_session_id") or "")
        if not row.get("parent_session_id"):
            return True
        return bool(parent and parent.get("end_reason") == "branched"
                    and row["started_at"] >= (parent.get("ended_at") or 0))  # fmt: skip

    def _list(self, request: httpx.Request) -> httpx.Response:
        params = request.url.params
        limit, offset = int(params.get("limit", 50)), int(params.get("offset", 0))
        rows = sorted(self.rows.values(), key=lambda r: -(r.get("last_active") or 0))
        if params.get("include_children") != "true":
            rows = [r for r in rows if self._listable(r)]
        page = rows[offset : offset + limit]
        body = {"object": "list", "data": page, "limit": limit, "offset": offset,
                "has_more": len(page) == limit}  # fmt: skip
        return httpx.Response(200, json=body)

    def _delete(self, request: httpx.Request, sid: str) -> httpx.Response:
        if self.fail_delete == "timeout":
            raise httpx.ReadTimeout("timed out", request=request)
        if isinstance(self.fail_delete, int):
            return httpx.Response(self.fail_delete, json={"error": {"code": "server_error"
                                  if self.fail_delete >= 500 else "invalid_api_key",
                                  "message": "failed"}})  # fmt: skip
        if sid not in self.rows:
            return _not_found()
        doomed, frontier = set(), {sid}
        while frontier:
            found = {c for c, p in self.delegate_of.items() if p in frontier and c not in doomed}
            doomed |= found
            frontier = found
        for gone in doomed | {sid}:
            self.rows.pop(gone, None)
            self.delegate_of.pop(gone, None)
        for row in self.rows.values():
            if row.get("parent_session_id") in doomed | {sid}:
                row["parent_session_id"] = None
        if self.fail_delete == "lost_answer":
            raise httpx.RemoteProtocolError("connection closed", request=request)
        return httpx.Response(200, json={"object": "hermes.session.deleted", "id": sid,
                                         "deleted": True})  # fmt: skip


def _not_found() -> httpx.Response:
    return httpx.Response(
        404, json={"error": {"code": "session_not_found", "message": "Session not found"}}
    )
