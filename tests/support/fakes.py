"""One fake Hermes for unit tests: an ``httpx.MockTransport`` handler with state.

It answers the sessions API the way the real hermes-agent 0.19.0 server did
when the payloads in ``tests/fixtures/hermes_samples/`` were captured (and
``tests/test_fakes.py`` holds it to them): both lists (newest activity
first, ``has_more`` when a page is full), the default list hiding
delegates, continuations and archived rows and projecting a compression
root to its tip, GET, PATCH and ``/messages`` of one session, and DELETE
cascading to delegates while orphaning every other child. Its rows are
shaped like the captured ones. Failures are injected per test
(``fail_list_after``, ``fail_delete``). The real provider is exercised
again by the ``*_peer*`` tests; this one keeps unit tests fast.
"""

from __future__ import annotations

import copy
import json
from urllib.parse import unquote

import httpx

from devtools.peer.paging import page_messages
from tests.support.samples import response, sample

LIST = "/api/sessions"
LIST_ONLY = ("last_active", "preview")  # fields a list row has and a GET does not
DEFAULT_AT = 1796300000.0
# The row of a captured GET, with the two list-only fields: every field a real row has.
ROW = {**sample("030_get")["body"]["session"], "last_active": None, "preview": ""}
# Failures answered with what the real server sent for them.
CAPTURED_FAILURES = {401: "002_auth_wrong", 404: "141_unknown_route", 500: "153_chat_error"}


def error(status: int, code: str, message: str) -> httpx.Response:
    """An error in the provider's own shape (see ``031_get_404``)."""
    body = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return httpx.Response(status, json={"error": body})


def not_found(session_id: str) -> httpx.Response:
    return error(404, "session_not_found", f"Session not found: {session_id}")


def raising(exc_type: type[httpx.TransportError]):
    """A transport handler that fails every request with ``exc_type`` (Hermes down, a timeout)."""

    def handler(request: httpx.Request):
        raise exc_type("fault", request=request)

    return handler


class FakeHermes:
    """The sessions API over ``rows``; ``markers`` is what the API hides: which rows are
    delegates (``"delegate"``: cascade-deleted, never in the default list) and which are
    CLI ``/branch`` children (``"branch"``: always listed)."""

    def __init__(self):
        self.rows: dict[str, dict] = {}
        self.markers: dict[str, str] = {}
        self.archived: set[str] = set()  # never listed, GET still answers
        self.messages: dict[str, list[dict]] = {}
        self.requests: list[httpx.Request] = []
        self.fail_list_after: int | None = None  # list calls beyond this many answer 503
        # "timeout", "lost_answer", "active_turn" (409 of a newer Hermes), or a status
        self.fail_delete: str | int | None = None
        # A newer Hermes: ``/messages`` pages by the paging peer's rules (devtools/peer/paging.py).
        self.paging = False
        self.fail_messages_from: int | None = None  # pages from this offset on answer 503

    @classmethod
    def captured(cls) -> FakeHermes:
        """The rows of ``201_list_lineage_children`` plus the archived row of
        ``216_get_archived``; real delegates are the tool-spawned ``subagent`` rows."""
        fake = cls()
        for row in sample("201_list_lineage_children")["body"]["data"]:
            fake.put(copy.deepcopy(row))
        archived = sample("216_get_archived")["body"]["session"]
        fake.put({**archived, "last_active": archived["started_at"], "preview": ""})
        fake.archived.add(archived["id"])
        return fake

    # -- arranging state ------------------------------------------------------

    def put(self, row: dict, marker: str | None = None) -> dict:
        sid = row["id"]
        self.rows[sid] = row
        marker = marker or ("delegate" if row["source"] == "subagent" else None)
        if marker:
            self.markers[sid] = marker
        count = row.get("message_count") or 0
        self.messages[sid] = [_message(sid, i) for i in range(1, count + 1)]
        return row

    def add(
        self,
        session_id: str,
        *,
        at: float = DEFAULT_AT,
        parent: str | None = None,
        source: str = "cli",
        marker: str | None = None,
        **fields,
    ) -> dict:
        """A new row started (and last active) ``at``, with two messages unless told."""
        row = {
            **ROW,
            "id": session_id,
            "source": source,
            "title": None,
            "parent_session_id": parent,
            "started_at": at,
            "ended_at": None,
            "end_reason": None,
            "message_count": 2,
            "last_active": at,
            "preview": f"preview of {session_id}",
            **fields,
        }
        return self.put(row, marker)

    def end(self, session_id: str, reason: str, at: float) -> None:
        self.rows[session_id].update(end_reason=reason, ended_at=at)

    def chat(self, session_id: str) -> None:
        """A turn lands: two more active messages and a bigger count."""
        n = len(self.messages[session_id])
        self.messages[session_id] += [
            _message(session_id, n + 1, "x"),
            _message(session_id, n + 2, "Echo: x"),
        ]
        self.rows[session_id]["message_count"] = n + 2

    def delete(self, session_id: str) -> None:
        """The provider's delete: delegates below go too (recursively), other children
        stay with their parent cleared."""
        doomed = [session_id]
        for gone in doomed:  # grows while walking: delegates of delegates too
            doomed += [
                sid
                for sid, row in self.rows.items()
                if row["parent_session_id"] == gone and self.markers.get(sid) == "delegate"
            ]
        for gone in doomed:
            self.rows.pop(gone, None)
            self.markers.pop(gone, None)
            self.messages.pop(gone, None)
        for row in self.rows.values():
            if row["parent_session_id"] in doomed:
                row["parent_session_id"] = None

    def get(self, session_id: str) -> dict:
        """The session as GET answers it (no list-only fields)."""
        return {k: v for k, v in self.rows[session_id].items() if k not in LIST_ONLY}

    # -- the provider's list rules ----------------------------------------------

    def _listable(self, row: dict) -> bool:
        """Roots, branches (children started after their parent ended ``branched``)
        and ``/branch`` children are listed; delegates and continuations are not."""
        if self.markers.get(row["id"]) == "delegate":
            return False
        if row["parent_session_id"] is None or self.markers.get(row["id"]) == "branch":
            return True
        parent = self.rows.get(row["parent_session_id"])
        return bool(
            parent
            and parent["end_reason"] == "branched"
            and row["started_at"] >= (parent["ended_at"] or 0)
        )

    def _tip(self, row: dict) -> dict:
        while row["end_reason"] == "compression":
            kids = [
                r
                for r in self.rows.values()
                if r["parent_session_id"] == row["id"] and r["id"] not in self.markers
            ]
            if not kids:
                break
            row = max(kids, key=lambda r: r["last_active"])
        return row

    def listing(self, include_children: bool) -> list[dict]:
        rows = [r for r in self.rows.values() if r["id"] not in self.archived]
        rows.sort(key=lambda r: (r["last_active"], r["started_at"], r["id"]), reverse=True)
        if include_children:
            return [dict(r) for r in rows]
        shown = []
        for row in filter(self._listable, rows):
            tip = self._tip(row)
            # The projection keeps the root's identity, start and parent (sample 200).
            shown.append(
                dict(row)
                if tip is row
                else {
                    **tip,
                    "started_at": row["started_at"],
                    "parent_session_id": row["parent_session_id"],
                    "_lineage_root_id": row["id"],
                }
            )
        return shown

    # -- the transport ------------------------------------------------------------

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.raw_path.decode().split("?")[0]
        if path == LIST and request.method == "GET":
            return self._list(request)
        if not path.startswith(LIST + "/"):
            return response(CAPTURED_FAILURES[404])
        sid, _, suffix = path.removeprefix(LIST + "/").partition("/")
        sid = unquote(sid)
        if request.method == "DELETE" and not suffix:
            return self._delete(request, sid)
        if sid not in self.rows:
            return not_found(sid)
        if (request.method, suffix) == ("GET", "messages"):
            return self._messages(request, sid)
        if request.method not in ("GET", "PATCH") or suffix:
            return response(CAPTURED_FAILURES[404])
        if request.method == "PATCH":
            self.rows[sid].update(json.loads(request.content))
        return httpx.Response(200, json={"object": "hermes.session", "session": self.get(sid)})

    @property
    def transport(self) -> httpx.MockTransport:
        return httpx.MockTransport(self)

    def _list(self, request: httpx.Request) -> httpx.Response:
        if self.fail_list_after is not None and self.list_calls > self.fail_list_after:
            return error(503, "session_db_unavailable", "Session database unavailable")
        params = request.url.params
        limit, offset = int(params.get("limit", 50)), int(params.get("offset", 0))
        page = self.listing(params.get("include_children") == "true")[offset : offset + limit]
        body = {
            "object": "list",
            "data": page,
            "limit": limit,
            "offset": offset,
            "has_more": len(page) == limit,
        }
        return httpx.Response(200, json=body)

    def _messages(self, request: httpx.Request, sid: str) -> httpx.Response:
        body = {"object": "list", "session_id": sid, "data": self.messages[sid]}
        if not self.paging:
            return httpx.Response(200, json=body)
        offset = int(request.url.params.get("offset", 0) or 0)
        if self.fail_messages_from is not None and offset >= self.fail_messages_from:
            return error(503, "session_db_unavailable", "Session database unavailable")
        query = {k: request.url.params.get_list(k) for k in request.url.params}
        status, answer = page_messages(body, query)
        return httpx.Response(status, json=answer)

    def _delete(self, request: httpx.Request, sid: str) -> httpx.Response:
        if self.fail_delete == "timeout":
            raise httpx.ReadTimeout("timed out", request=request)
        if self.fail_delete == "active_turn":  # a newer Hermes while a turn writes
            return error(409, "session_active_turn", "A turn is running in this session.")
        if isinstance(self.fail_delete, int):
            name = CAPTURED_FAILURES.get(self.fail_delete)
            return response(name) if name else error(self.fail_delete, "server_error", "failed")
        if sid not in self.rows:
            return not_found(sid)
        self.delete(sid)
        if self.fail_delete == "lost_answer":
            raise httpx.RemoteProtocolError("connection closed", request=request)
        return httpx.Response(
            200, json={"object": "hermes.session.deleted", "id": sid, "deleted": True}
        )

    # -- what was asked -------------------------------------------------------------

    @property
    def calls(self) -> list[tuple[str, str]]:
        return [(r.method, r.url.raw_path.decode().split("?")[0]) for r in self.requests]

    @property
    def list_calls(self) -> int:
        return sum(1 for method, path in self.calls if path == LIST)

    @property
    def get_calls(self) -> int:
        return sum(1 for method, path in self.calls if method == "GET" and path != LIST)

    def reset_counts(self) -> None:
        self.requests.clear()

    def clear(self) -> None:
        """No rows at all, for tests that seed exactly the rows they reason about."""
        self.rows.clear()
        self.markers.clear()
        self.archived.clear()
        self.messages.clear()


def _message(session_id: str, n: int, content: str | None = None) -> dict:
    return {
        "id": n,
        "session_id": session_id,
        "role": "user" if n % 2 else "assistant",
        "content": content or f"hello {session_id} {n}",
        "timestamp": 1795000000.0 + n,
    }
