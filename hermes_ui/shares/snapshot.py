"""Taking a share's snapshot: one session's transcript read once, masked, projected.

What is kept is only what the shared page shows: the masked title, and each
message's role, time and masked plain text (what the export writes too). Every
string goes through the export redactor (``platform.redaction``) after it is
projected, so whatever the page shows was masked.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime

from hermes_ui.hermes.transcript import plain_text
from hermes_ui.platform import redaction as redact
from hermes_ui.platform.redaction import Redactor

MAX_MESSAGES = 2000  # a longer transcript is shared from its start, with a note
MAX_CHARS = 100_000  # per message


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


def take(client, session_id: str) -> Snapshot:
    """Read the session and its whole active transcript; raises ``HermesError``."""
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
    return Snapshot(
        title=str(title),
        source=str(row.get("source") or ""),
        body=body,
        masked=redactor.count,
        by_kind=dict(sorted(redactor.by_kind.items())),
    )


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
