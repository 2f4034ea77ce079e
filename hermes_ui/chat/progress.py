"""What a turn looks like so far: the provider's events folded into one view.

The same fold serves the live relay (event by event) and a reload (over the
stored events), so a reconnect shows exactly what the first page showed.
Pure code: no Django models, no I/O.
"""

from __future__ import annotations

import copy
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from hermes_ui.hermes import transcript

THINKING_TOOL = "_thinking"
# Hermes reports a failed model call as the answer text (no ``error`` event).
_MODEL_FAILURE = re.compile(r"^(API call failed after \d+ retries|HTTP \d{3}: )")
ACTIVE = ("pending", "streaming")


@dataclass
class ToolActivity:
    name: str
    status: str  # started, completed, failed
    preview: str = ""
    args: str = ""  # pretty-printed JSON, shown collapsed
    seq: int = 0


@dataclass
class TurnView:
    turn_id: int
    endpoint_id: str
    requested_session_id: str
    target_session_id: str
    message: Any
    mode: str = "stream"
    state: str = "pending"
    system_message: str = ""
    session_key: str = ""
    username: str = ""
    user_id: int | None = None  # the owner: only they and admins see the memory scope
    created_at: datetime | None = None
    rejected: bool = False
    error_code: str = ""
    error_message: str = ""
    answer: str = ""  # the deltas so far
    final_answer: str | None = None  # assistant.completed content
    tools: list[ToolActivity] = field(default_factory=list)
    effective_session_id: str = ""
    usage: dict | None = None
    run_id: str = ""
    provider_error: str = ""  # the message of an ``error`` event
    seen: set = field(default_factory=set)
    partial: bool = False
    interrupted: bool = False
    run_messages: int | None = None  # rows run.completed says the turn wrote
    # Events of Hermes after 0.19: commentary between tool calls, an approval Hermes
    # waits for, and a run it ended itself (cancelled or failed).
    commentary: list[str] = field(default_factory=list)
    awaiting_approval: str = ""
    provider_end: str = ""  # "cancelled" or "failed" (``run.cancelled`` / ``run.failed``)
    last_seq: int = 0
    thinking_previews: int = 0
    keepalives: int = 0
    event_count: int = 0
    durability: dict = field(default_factory=dict)

    # -- folding -------------------------------------------------------

    def apply(self, seq: int, name: str, data: dict) -> str:
        """Fold one event in; returns what changed: "delta", "tools", "status" or ""."""
        self.last_seq = seq
        self.event_count += 1
        self.seen.add(name)
        if name == "assistant.delta":
            self.answer += _text(data.get("delta"))
            return "delta"
        if name == "tool.progress":
            if data.get("tool_name") == THINKING_TOOL:
                # A reasoning preview (the first 500 characters of the
                # answer): appending it would show the answer twice.
                self.thinking_previews += 1
                return ""
            return self._tool(seq, data, "progress")
        if name in {"tool.started", "tool.completed", "tool.failed"}:
            return self._tool(seq, data, name.split(".", 1)[1])
        if name == "run.started":
            self.run_id = _text(data.get("run_id"))
            return ""
        if name == "assistant.completed":
            self.final_answer = _text(data.get("content"))
            self.partial = bool(data.get("partial"))
            self.interrupted = bool(data.get("interrupted"))
            self._effective(data)
            return ""  # shown by the final snapshot
        if name == "run.completed":
            usage = data.get("usage")
            self.usage = usage if isinstance(usage, dict) else None
            messages = data.get("messages")
            self.run_messages = len(messages) if isinstance(messages, list) else None
            self._effective(data)
            return "status"
        if name == "error":
            self.provider_error = _text(data.get("message")) or "Hermes reported an error."
            return "status"
        if name == "assistant.commentary":
            text = _said(data)
            if text:
                self.commentary.append(text)
            return "tools" if text else ""
        if name == "approval.request":
            self.awaiting_approval = (
                _text(data.get("command")) or _said(data) or "a command (Hermes named none)"
            )
            return "status"
        if name in {"run.cancelled", "run.failed"}:
            self.provider_end = name.split(".", 1)[1]
            self.awaiting_approval = ""
            if name == "run.failed":
                self.provider_error = (
                    _said(data) or _text(data.get("error")) or "Hermes reported the run failed."
                )
            return "status"
        # ``done`` carries the OLD session id after a rotation: never read it.
        return ""

    def _effective(self, data: dict) -> None:
        session_id = data.get("session_id")
        if isinstance(session_id, str) and session_id:
            self.effective_session_id = session_id

    def _tool(self, seq: int, data: dict, status: str) -> str:
        name = _text(data.get("tool_name")) or "tool"
        preview = _text(data.get("preview"))
        if status != "started":
            # completed/failed/progress update the latest unfinished call of
            # that tool; Hermes sends ``args: null`` on them.
            for tool in reversed(self.tools):
                if tool.name == name and tool.status == "started":
                    if status != "progress":
                        tool.status = status
                    tool.preview = preview or tool.preview
                    return "tools"
        args = data.get("args")
        shown = transcript.pretty_json(args) if args not in (None, "", {}) else ""
        first = "started" if status == "progress" else status
        self.tools.append(ToolActivity(name, first, preview, shown, seq))
        return "tools"

    # -- reading -------------------------------------------------------

    @property
    def running(self) -> bool:
        return self.state in ACTIVE

    @property
    def rotated(self) -> bool:
        return bool(self.effective_session_id) and self.effective_session_id != (
            self.target_session_id
        )

    @property
    def next_session_id(self) -> str:
        """Where the next turn goes: the rotated id when compression moved it."""
        return self.effective_session_id or self.target_session_id

    @property
    def model_failed(self) -> bool:
        """Hermes put a model failure where the answer goes."""
        text = self.final_answer or ""
        if "run.completed" in self.seen and self.run_messages == 0 and text:
            return True
        return bool(_MODEL_FAILURE.match(text))

    @property
    def shown_answer(self) -> str:
        if self.final_answer is not None and not self.model_failed:
            return self.final_answer
        return self.answer

    @property
    def parts(self) -> list:
        return transcript.content_parts(self.message)

    def copy(self) -> TurnView:
        """A snapshot another thread can render while this one keeps folding."""
        clone = copy.copy(self)
        clone.tools = [copy.copy(t) for t in self.tools]
        clone.commentary = list(self.commentary)
        clone.seen = set(self.seen)
        clone.durability = dict(self.durability)
        clone.usage = dict(self.usage) if self.usage else None
        return clone


@dataclass
class Ending:
    state: str
    code: str = ""
    message: str = ""


def classify_end(view: TurnView) -> Ending:
    """The terminal state of a stream that ended on its own (no cancel, timeout or bound)."""
    if view.provider_end == "cancelled":
        return Ending("cancelled", "run_cancelled", "Hermes cancelled the run.")
    if view.provider_error:
        return Ending("failed", "hermes_error", view.provider_error)
    if view.model_failed:
        return Ending("failed", "model_failed", view.final_answer or "")
    if "assistant.completed" not in view.seen:
        if "done" in view.seen:
            return Ending("uncertain", "no_completion", "The stream ended without an answer.")
        return Ending(
            "uncertain",
            "stream_ended_early",
            "The connection to Hermes ended before the turn finished.",
        )
    if view.partial or view.interrupted:
        return Ending("uncertain", "partial_answer", "Hermes marked the answer as incomplete.")
    return Ending("completed")


def content_text(message: Any) -> str:
    """The text of a turn's content (string or parts), for matching and display."""
    if isinstance(message, str):
        return message
    if isinstance(message, list):
        texts = [
            str(p.get("text") or "")
            for p in message
            if isinstance(p, dict) and p.get("type") in {"text", "input_text"}
        ]
        return "\n".join(t for t in texts if t)
    return ""


def _text(value) -> str:
    return value if isinstance(value, str) else ""


def _said(data: dict) -> str:
    """The words of an event whose field name varies (``content``, ``text``, ``message``)."""
    return next((v for k in ("content", "text", "message") if (v := _text(data.get(k)))), "")
