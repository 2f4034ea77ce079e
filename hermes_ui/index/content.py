"""What of a message is searchable: the text the content index and "find" look in.

User and assistant content, tool names and arguments, tool results (cut to
``HERMES_INDEX_TOOL_RESULT_CHARS`` per message) and, only with
``HERMES_INDEX_CONTENT_REASONING=true``, reasoning. Pure functions: no
database, no HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass

from hermes_ui.hermes.transcript import MARK_END, MARK_START, message_text

__all__ = ["MARK_END", "MARK_START", "Searchable", "message_text", "searchable"]


@dataclass(frozen=True)
class Searchable:
    message_id: int
    role: str
    timestamp: float | None
    text: str


def searchable(rows: list, **options) -> list[Searchable]:
    """The messages of a transcript that have searchable text, with integer ids."""
    found = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        message_id = row.get("id")
        if not isinstance(message_id, int) or isinstance(message_id, bool):
            continue
        text = message_text(row, **options)
        if not text:
            continue
        stamp = row.get("timestamp")
        stamp = float(stamp) if isinstance(stamp, (int, float)) else None
        found.append(Searchable(message_id, str(row.get("role") or "")[:40], stamp, text))
    return found
