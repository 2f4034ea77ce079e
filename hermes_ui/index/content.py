"""What of a message is searchable: the text the content index and "find" look in.

User and assistant content, tool names and arguments, tool results (cut to
``HERMES_INDEX_TOOL_RESULT_CHARS`` per message) and, only with
``HERMES_INDEX_CONTENT_REASONING=true``, reasoning. Pure functions: no
database, no HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass

from django.conf import settings

from hermes_ui.sessions.transcript import content_parts

# Snippets mark matches with these two characters (see ``snippets``); they are
# removed from indexed text so a message cannot forge a highlight.
MARK_START, MARK_END = "\x02", "\x03"
_STRIP = str.maketrans({MARK_START: " ", MARK_END: " ", "\x00": " "})


@dataclass(frozen=True)
class Searchable:
    message_id: int
    role: str
    timestamp: float | None
    text: str


def message_text(row: dict, *, reasoning: bool | None = None, tool_chars: int | None = None) -> str:
    """The searchable text of one ``session_messages`` row ("" when it has none)."""
    if reasoning is None:
        reasoning = settings.HERMES_INDEX_CONTENT_REASONING
    if tool_chars is None:
        tool_chars = settings.HERMES_INDEX_TOOL_RESULT_CHARS
    pieces = [p.text for p in content_parts(row.get("content")) if p.kind != "image"]
    if row.get("role") == "tool" or row.get("tool_call_id"):
        name = row.get("tool_name")
        body = "\n".join(pieces)[:tool_chars]
        pieces = [str(name)] if isinstance(name, str) and name else []
        pieces.append(body)
    calls = row.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        pieces.append(str(function.get("name") or call.get("name") or ""))
        arguments = function.get("arguments", call.get("arguments", ""))
        pieces.append(arguments if isinstance(arguments, str) else str(arguments))
    if reasoning:
        pieces.append(str(row.get("reasoning") or row.get("reasoning_content") or ""))
    return "\n".join(p for p in pieces if p).translate(_STRIP).strip()


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
