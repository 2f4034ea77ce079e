"""Which sessions an export holds, and reading them one at a time.

``plan`` reads the asked session before the response starts, so a missing
session or an unreachable Hermes is an error page, not a broken download.
With ``lineage`` the rest of the tree comes from the index (root first,
depth-first, as the lineage page lists it); ``sessions`` then reads each
member's row and messages only when the writer reaches it, so at most one
transcript beyond the asked one is in memory.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from hermes_ui.access.rules import access_of
from hermes_ui.export.formats import ExportSession
from hermes_ui.hermes import HermesError
from hermes_ui.index import sync
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.lineage.graph.classify import kinds_of
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.platform import redaction as redact
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.search import queries, visibility
from hermes_ui.web.failures import title_for

MAX_SESSIONS = 300  # sessions in one lineage export


@dataclass
class Plan:
    session_id: str
    row: dict
    messages: dict
    ids: list[str]
    info: dict[str, dict]  # id -> lineage metadata
    notes: list[str] = field(default_factory=list)
    hidden: set[str] = field(default_factory=set)  # lineage members the person may not see


def plan(client, ep: Endpoint, session_id: str, *, lineage: bool, user=None) -> Plan:
    """Raises ``HermesError`` when the asked session cannot be read. A lineage holds
    only the members ``user`` may see (``search.visibility``)."""
    row = client.get_session(session_id).as_row()
    messages = client.get_messages(session_id)
    own = {"parent_session_id": row.get("parent_session_id") or None}
    parent = own["parent_session_id"]
    if parent and visibility.limits(user, ep.id) and not visibility.allowed_ids(user, ep, [parent]):
        own["parent_session_id"] = row["parent_session_id"] = None  # a hidden parent unnamed
    if not lineage:
        kind = queries.present(ep).filter(session_id=session_id).values_list("kind", flat=True)
        own.update(kind=kind.first() or None, root_session_id=None, depth=None)
        return Plan(session_id, row, messages, [session_id], {session_id: own})
    with contextlib.suppress(HermesError):  # the index as it is; the session was just read
        sync.refresh_now(ep, session_id)
    found = queries.lineage(ep, session_id)
    notes: list[str] = []
    if found is None:
        note = "This session is not in the index yet, so only it is exported, not its lineage."
        own.update(kind=None, root_session_id=None, depth=None)
        return Plan(session_id, row, messages, [session_id], {session_id: own}, [note])
    if visibility.limits(user, ep.id):
        access = access_of(user)
        hidden = {r["id"] for r in found.rows if not access.sees(ep.id, r.get("source") or "")}
        if hidden - {session_id}:
            notes.append("Sessions of the lineage that you may not see are left out.")
    else:
        hidden = set()
    tree = Tree(found.rows)
    kinds = kinds_of(found.rows, forked_ids=forked_child_ids(ep))
    order = [(sid, depth) for sid, depth in tree.walk(found.root_id) if sid not in hidden]
    if found.truncated or len(order) > MAX_SESSIONS:
        kept = min(len(order), MAX_SESSIONS)
        notes.append(
            f"This lineage is larger than one export holds; the first {kept} "
            "sessions from the root are exported."
        )
    order = order[:MAX_SESSIONS]
    if session_id not in {sid for sid, _ in order}:
        order.append((session_id, None))  # type: ignore[arg-type]
    info = {
        sid: {
            "parent_session_id": _shown((tree.get(sid) or {}).get("parent_session_id"), hidden),
            "root_session_id": _shown(found.root_id, hidden),
            "kind": kinds.get(sid),
            "depth": depth,
        }
        for sid, depth in order
    }
    if row.get("parent_session_id") in hidden:
        row["parent_session_id"] = None
    return Plan(session_id, row, messages, [sid for sid, _ in order], info, notes, hidden)


def _shown(session_id: str | None, hidden: set[str]) -> str | None:
    """An id the export may name: None for no id, or for one of a hidden session."""
    return None if not session_id or session_id in hidden else session_id


def sessions(
    client, plan: Plan, redactor: redact.Redactor, allowed: Callable[[str], bool] | None = None
) -> Iterator[ExportSession]:
    """Each member, read when the writer reaches it. ``allowed(source)`` is asked again
    before each one is read (a grant may be taken away while a long export streams):
    a member it refuses is left out, unread and unnamed."""
    for sid in plan.ids:
        if sid == plan.session_id:
            row, messages, error = plan.row, plan.messages, ""
            if allowed is not None and not allowed(row.get("source") or ""):
                return  # the asked session itself is no longer theirs: nothing more
        else:
            try:
                row = client.get_session(sid).as_row()
                if allowed is not None and not allowed(row.get("source") or ""):
                    continue
                if row.get("parent_session_id") in plan.hidden:
                    row["parent_session_id"] = None
                messages = client.get_messages(sid)
                error = ""
            except HermesError as failure:
                row, messages = {"id": sid}, {"session_id": sid, "data": []}
                error = title_for(failure)
        yield ExportSession(
            row=redact.session_row(redactor, row),
            lineage=plan.info[sid],
            messages_session_id=messages["session_id"],
            messages=(redact.message(redactor, m) for m in messages["data"]),
            error=error,
        )
