"""One session row, typed: what ``session_get``, create, patch and fork return.

``Session`` names the fields the dashboard reads (``parent_session_id`` is
``parent_id`` here) and keeps the row as Hermes sent it in ``raw``, for the
fields it does not type and for code that stores rows as JSON (the index,
deletion snapshots, recorded evidence). ``is_closed`` is the one place that
decides whether a session is closed, for this value and for plain rows
(list pages, index rows, snapshots) alike.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def is_closed(row: Session | Mapping[str, Any] | None) -> bool:
    """Whether a session is closed.

    Hermes sets ``ended_at`` and ``end_reason`` together, but rows from other
    writers of the shared database may carry only one of them; either means
    the session ended, and nothing reopens it.
    """
    if isinstance(row, Session):
        ended_at, end_reason = row.ended_at, row.end_reason
    elif isinstance(row, Mapping):
        ended_at, end_reason = row.get("ended_at"), row.get("end_reason")
    else:
        return False
    return bool(ended_at or end_reason)


@dataclass(frozen=True)
class Session:
    id: str
    title: str | None = None
    source: str | None = None
    model: str | None = None
    user_id: str | None = None
    parent_id: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    end_reason: str | None = None
    last_active: float | None = None
    message_count: int | None = None
    tool_call_count: int | None = None
    api_call_count: int | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_read_tokens: int | None = None
    cache_write_tokens: int | None = None
    reasoning_tokens: int | None = None
    estimated_cost_usd: float | None = None
    actual_cost_usd: float | None = None
    has_system_prompt: bool | None = None
    has_model_config: bool | None = None
    # Reported by Hermes newer than 0.19 only; ``None``: this server does not say.
    archived: bool | None = None
    pinned: bool | None = None
    # The row as received; not compared, so two reads of one state are equal.
    raw: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_row(cls, row: Mapping[str, Any]) -> Session:
        """The typed value of an API row (which must carry a string ``id``)."""
        return cls(
            id=row["id"],
            title=_text(row.get("title")),
            source=_text(row.get("source")),
            model=_text(row.get("model")),
            user_id=_text(row.get("user_id")),
            parent_id=_text(row.get("parent_session_id")) or None,
            started_at=_number(row.get("started_at")),
            ended_at=_number(row.get("ended_at")),
            end_reason=_text(row.get("end_reason")),
            last_active=_number(row.get("last_active")),
            message_count=_number(row.get("message_count")),
            tool_call_count=_number(row.get("tool_call_count")),
            api_call_count=_number(row.get("api_call_count")),
            input_tokens=_number(row.get("input_tokens")),
            output_tokens=_number(row.get("output_tokens")),
            cache_read_tokens=_number(row.get("cache_read_tokens")),
            cache_write_tokens=_number(row.get("cache_write_tokens")),
            reasoning_tokens=_number(row.get("reasoning_tokens")),
            estimated_cost_usd=_number(row.get("estimated_cost_usd")),
            actual_cost_usd=_number(row.get("actual_cost_usd")),
            has_system_prompt=_flag(row.get("has_system_prompt")),
            has_model_config=_flag(row.get("has_model_config")),
            archived=_flag(row.get("archived")),
            pinned=_flag(row.get("pinned")),
            raw=dict(row),
        )

    @property
    def closed(self) -> bool:
        return is_closed(self)

    @property
    def compressed(self) -> bool:
        """Closed by context compression: the transcript continues in a child."""
        return self.end_reason == "compression"

    def as_row(self) -> dict[str, Any]:
        """The row as Hermes sent it: a fresh, JSON-serialisable dict."""
        return dict(self.raw) if self.raw else {"id": self.id}


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _number(value: Any) -> Any:
    """A count, token figure or time as the API gave it; anything else is unknown."""
    return value if isinstance(value, int | float) and not isinstance(value, bool) else None


def _flag(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None
