"""Turn the rows of ``session_messages`` into what the transcript template shows,
and into the searchable text of a message (``message_text``: what the content
index and "find" look in).

Nothing here escapes or marks anything safe: templates escape every value,
and markdown goes through ``hermes_ui.web.markdown`` only.
"""

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

_DATA_IMAGE = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,", re.IGNORECASE)
# Only web links become anchors: any other scheme (``javascript:``, ``vbscript:``,
# ``file:``, other ``data:`` types) is provider text and is shown as text.
_WEB_LINK = re.compile(r"https?://\S+", re.IGNORECASE)


def anchor(prefix: str, value: Any) -> str:
    """A DOM id derived from provider text, so the text itself never becomes markup."""
    digest = hashlib.sha1(str(value).encode(), usedforsecurity=False).hexdigest()[:12]
    return f"{prefix}-{digest}"


@dataclass
class Part:
    kind: str  # "text", "image", "other"
    text: str = ""
    url: str = ""
    inline_image: bool = False
    linkable: bool = False


@dataclass
class ToolCall:
    call_id: str
    name: str
    arguments: str
    anchor: str
    result_anchor: str


@dataclass
class Message:
    row: dict
    role: str
    parts: list[Part]
    tool_calls: list[ToolCall] = field(default_factory=list)
    reasoning: str = ""
    tool_result_for: ToolCall | None = None
    tool_result_anchor: str = ""

    @property
    def id(self):
        return self.row.get("id")

    @property
    def hidden(self) -> bool:
        """A compaction summary newer servers hide (sent emptied, ``display_kind: "hidden"``)."""
        return self.row.get("display_kind") == "hidden"


def pretty_json(raw: Any) -> str:
    """Tool arguments arrive as a JSON string; show them indented when they parse."""
    if isinstance(raw, str):
        try:
            return json.dumps(json.loads(raw), indent=2, ensure_ascii=False)
        except ValueError:
            return raw
    try:
        return json.dumps(raw, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return str(raw)


def content_parts(content: Any) -> list[Part]:
    if content is None or content == "":
        return []
    if isinstance(content, str):
        return [Part("text", text=content)]
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, str):
                parts.append(Part("text", text=item))
            elif not isinstance(item, dict):
                parts.append(Part("other", text=pretty_json(item)))
            elif item.get("type") in {"text", "input_text", "output_text"}:
                parts.append(Part("text", text=str(item.get("text") or "")))
            elif item.get("type") in {"image_url", "input_image"}:
                url = item.get("image_url")
                if isinstance(url, dict):
                    url = url.get("url")
                url = str(url or "")
                parts.append(
                    Part(
                        "image",
                        url=url,
                        inline_image=bool(_DATA_IMAGE.match(url)),
                        linkable=bool(_WEB_LINK.fullmatch(url)),
                    )
                )
            else:
                parts.append(Part("other", text=pretty_json(item)))
        return parts
    return [Part("other", text=pretty_json(content))]


def _tool_calls(row: dict) -> list[ToolCall]:
    calls = row.get("tool_calls")
    if not isinstance(calls, list):
        return []
    result = []
    for index, call in enumerate(calls):
        if not isinstance(call, dict):
            continue
        function = call.get("function") if isinstance(call.get("function"), dict) else {}
        call_id = str(call.get("id") or call.get("call_id") or f"{row.get('id')}-{index}")
        result.append(
            ToolCall(
                call_id=call_id,
                name=str(function.get("name") or call.get("name") or "tool"),  # type: ignore[union-attr]
                arguments=pretty_json(function.get("arguments", call.get("arguments", ""))),  # type: ignore[union-attr]
                anchor=anchor("call", call_id),
                result_anchor=anchor("result", call_id),
            )
        )
    return result


def build(rows: list[dict], known_calls: dict[str, ToolCall] | None = None) -> list[Message]:
    """Build messages in order; ``known_calls`` lets a later chunk tie results to earlier calls."""
    calls = dict(known_calls or {})
    messages = []
    for row in rows:
        if not isinstance(row, dict):
            continue
        message = Message(
            row=row,
            role=str(row.get("role") or "unknown"),
            parts=content_parts(row.get("content")),
            tool_calls=_tool_calls(row),
            reasoning=str(row.get("reasoning") or row.get("reasoning_content") or ""),
        )
        for call in message.tool_calls:
            calls[call.call_id] = call
        call_id = row.get("tool_call_id")
        if call_id:
            message.tool_result_for = calls.get(str(call_id))
            message.tool_result_anchor = anchor("result", call_id)
            if message.tool_result_for is None:
                message.tool_result_for = ToolCall(
                    str(call_id),
                    str(row.get("tool_name") or "tool"),
                    "",
                    anchor("call", call_id),
                    message.tool_result_anchor,
                )
        messages.append(message)
    return messages


def calls_in(rows: list[dict]) -> dict[str, ToolCall]:
    """The tool calls ``rows`` make, by call id: what a later chunk's results answer.
    Reads only the rows' ``tool_calls`` (no content parsed)."""
    return {
        call.call_id: call
        for row in rows
        if isinstance(row, dict) and row.get("tool_calls")
        for call in _tool_calls(row)
    }


def plain_text(row: dict) -> str:
    """What a message says, as plain text: its parts, then its tool calls."""
    built = build([row])[0]
    lines = [part.text or part.url for part in built.parts]
    lines += [f"→ {call.name}({call.arguments})" for call in built.tool_calls]
    if built.row.get("tool_name") and not built.tool_calls:
        lines.insert(0, f"[{built.row['tool_name']}]")
    return "\n".join(line for line in lines if line)


def page_after(rows: list[dict], after_id: int | None, size: int) -> tuple[list[dict], int | None]:
    """Rows after message id ``after_id`` (insertion order) and the id to continue from."""
    start = 0
    if after_id is not None:
        for index, row in enumerate(rows):
            if row.get("id") == after_id:
                start = index + 1
                break
        else:
            # The anchor vanished (transcript rewritten): continue by id order.
            start = next((i for i, r in enumerate(rows) if _int(r.get("id")) > after_id), len(rows))
    chunk = rows[start : start + size]
    more = start + size < len(rows)
    return chunk, (chunk[-1].get("id") if chunk and more else None)


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def page_around(rows: list[dict], message_id, size: int) -> tuple[int, list[dict], int | None]:
    """The chunk holding message ``message_id``: (its start index, rows, id to continue from).

    Chunks keep the boundaries of ``page_after`` (multiples of ``size``), so the
    "load more" that follows and the "earlier" link before line up with it.
    An unknown id gives the first chunk.
    """
    index = next((i for i, row in enumerate(rows) if row.get("id") == message_id), 0)
    start = index // size * size
    chunk = rows[start : start + size]
    more = start + size < len(rows)
    return start, chunk, (chunk[-1].get("id") if chunk and more else None)


# Snippets mark matches with these two characters (see ``snippets``); they are
# removed from indexed text so a message cannot forge a highlight.
MARK_START, MARK_END = "\x02", "\x03"
_STRIP = str.maketrans({MARK_START: " ", MARK_END: " ", "\x00": " "})


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
        pieces.append(str(function.get("name") or call.get("name") or ""))  # type: ignore[union-attr]
        arguments = function.get("arguments", call.get("arguments", ""))  # type: ignore[union-attr]
        pieces.append(arguments if isinstance(arguments, str) else str(arguments))
    if reasoning:
        pieces.append(str(row.get("reasoning") or row.get("reasoning_content") or ""))
    return "\n".join(p for p in pieces if p).translate(_STRIP).strip()
