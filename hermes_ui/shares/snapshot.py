"""Taking a share's snapshot: one session's transcript read once, masked, projected.

What is kept is only what the shared page shows: the masked title, each
message's role, time and masked plain text (what the export writes too), and,
if asked, the lineage as the index knows it (ids, masked titles, kinds and
depths of the sessions the sharer may see). Every string goes through the
export redactor (``platform.redaction``) after it is projected, so whatever
the page shows was masked.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from hermes_ui.access.rules import access_of
from hermes_ui.hermes.transcript import plain_text
from hermes_ui.index.forks import forked_child_ids
from hermes_ui.lineage.graph.classify import kinds_of
from hermes_ui.lineage.graph.tree import Tree
from hermes_ui.platform import redaction as redact
from hermes_ui.platform.redaction import Redactor
from hermes_ui.search import queries

MAX_MESSAGES = 2000  # a longer transcript is shared from its start, with a note
MAX_CHARS = 100_000  # per message
MAX_LINEAGE = 300  # sessions of a shared lineage, from its root


@dataclass
class Snapshot:
    title: str
    source: str
    body: dict  # {"messages": [...], "total": n, "cut": bool}
    masked: int
    by_kind: dict

    @property
    def digest(self) -> str:
        """What the person previewed: a POST that finds another snapshot shows it again."""
        text = json.dumps([self.title, self.body], sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


def take(client, session_id: str, *, lineage_for=None) -> Snapshot:
    """Read the session and its whole active transcript; raises ``HermesError``.
    ``lineage_for``: ``(endpoint, user)`` to add the lineage that person may see."""
    row = client.get_session(session_id).as_row()
    rows = client.get_messages(session_id)["data"]
    redactor = Redactor(enabled=True)
    title = redact.session_row(redactor, row).get("title") or ""
    messages = []
    for message in rows[:MAX_MESSAGES]:
        text = plain_text(message)
        cut = len(text) > MAX_CHARS
        messages.append(
            {
                "role": str(message.get("role") or ""),
                "at": message.get("timestamp") if _number(message.get("timestamp")) else None,
                "text": redactor.text(text[:MAX_CHARS]) + (" […]" if cut else ""),
            }
        )
    body = {"messages": messages, "total": len(rows), "cut": len(rows) > MAX_MESSAGES}
    if lineage_for is not None:
        ep, user = lineage_for
        body["lineage"] = _lineage(ep, user, session_id, redactor)
    return Snapshot(
        title=str(title),
        source=str(row.get("source") or ""),
        body=body,
        masked=redactor.count,
        by_kind=dict(sorted(redactor.by_kind.items())),
    )


def _lineage(ep, user, session_id: str, redactor: Redactor) -> list[dict]:
    """The indexed lineage around ``session_id``, root first, without what ``user`` may
    not see; [] when the index does not know the session yet."""
    found = queries.lineage(ep, session_id)
    if found is None:
        return []
    access = access_of(user)
    hidden = {r["id"] for r in found.rows if not access.sees(ep.id, r.get("source") or "")}
    tree = Tree(found.rows)
    kinds = kinds_of(found.rows, forked_ids=forked_child_ids(ep))
    shown = []
    for sid, depth in tree.walk(found.root_id):
        if sid in hidden:
            continue  # its descendants keep their depth: the gap is not explained
        title = (tree.get(sid) or {}).get("title") or ""
        shown.append(
            {
                "id": sid,
                "title": redactor.text(str(title)),
                "kind": kinds.get(sid) or "",
                "depth": depth,
                "here": sid == session_id,
            }
        )
        if len(shown) >= MAX_LINEAGE:
            break
    return shown


def _number(value) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def shown(body) -> list[dict]:
    """The stored messages as the templates show them: times as datetimes (UTC)."""
    messages = []
    for message in (body or {}).get("messages", []):
        at = message.get("at")
        when = datetime.fromtimestamp(at, UTC) if _number(at) else None
        role, text = message.get("role") or "", message.get("text")
        messages.append({"role": role, "text": text, "at": when})
    return messages
