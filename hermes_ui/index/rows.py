"""API session rows <-> index columns.

Only the fields the provider's client-safe projection exposes are kept, minus
``user_id`` (the index has no use for who a session belongs to). A field the
row does not carry (``session_get`` has no ``preview`` or ``last_active``)
keeps its indexed value instead of being blanked.
"""

from __future__ import annotations

from hermes_ui.platform.digests import json_digest

TEXT_FIELDS = {
    "source": 200,
    "model": 200,
    "title": 300,
    "parent_session_id": 300,
    "end_reason": 200,
    "preview": 300,
}
INT_FIELDS = (
    "message_count",
    "tool_call_count",
    "api_call_count",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
)
# The index's integer columns: 32-bit counts, 64-bit token totals. PostgreSQL
# refuses a value out of range (SQLite stores anything), so one absurd number
# from the provider is kept as unknown instead of failing the whole sync.
_INT_RANGE = {name: 2**31 - 1 for name in INT_FIELDS[:3]}
FLOAT_FIELDS = ("started_at", "ended_at", "estimated_cost_usd", "actual_cost_usd", "last_active")
API_FIELDS = (*TEXT_FIELDS, *INT_FIELDS, *FLOAT_FIELDS)
# Reported only by a Hermes newer than 0.19 (``None`` elsewhere): they enter a row's
# digest only when reported, so rows of older servers keep their digests.
FLAG_FIELDS = ("archived", "pinned")


def columns(row: dict, previous: dict | None = None) -> dict:
    """Index columns for an API row, merged over ``previous`` for missing fields."""
    merged = dict(previous or {})
    for name, limit in TEXT_FIELDS.items():
        if name in row:
            value = row[name]
            # PostgreSQL text cannot hold NUL; SQLite would keep it.
            merged[name] = value.replace("\x00", "")[:limit] if isinstance(value, str) else ""
    for name in INT_FIELDS:
        if name in row:
            number = _int(row[name])
            limit = _INT_RANGE.get(name, 2**63 - 1)
            merged[name] = number if number is None or -limit <= number <= limit else None
    for name in FLOAT_FIELDS:
        if name in row:
            merged[name] = _float(row[name])
    for name in FLAG_FIELDS:
        if name in row:
            merged[name] = row[name] if isinstance(row[name], bool) else None
        merged.setdefault(name, None)
    for name in API_FIELDS:
        merged.setdefault(name, "" if name in TEXT_FIELDS else None)
    activity = merged.get("last_active")
    merged["order_key"] = activity if activity is not None else (merged.get("started_at") or 0.0)
    fields = {name: merged[name] for name in API_FIELDS}
    fields.update({name: merged[name] for name in FLAG_FIELDS if merged[name] is not None})
    merged["digest"] = digest(fields)
    return merged


def digest(fields: dict) -> str:
    return json_digest(fields, 32)


def as_row(indexed) -> dict:
    """An index row back in the API's shape (plus the index's own findings)."""
    row = {name: getattr(indexed, name) for name in API_FIELDS}
    row.update(
        {name: getattr(indexed, name) for name in FLAG_FIELDS if getattr(indexed, name) is not None}
    )
    row["id"] = indexed.session_id
    row["parent_session_id"] = indexed.parent_session_id or None
    row["end_reason"] = indexed.end_reason or None
    row["title"] = indexed.title or None
    row.update(
        visible_in_default_list=indexed.visible_in_default_list,
        former_parent_id=indexed.former_parent_id or None,
        listed=indexed.listed,
        kind=indexed.kind,
        vanished=indexed.vanished_at is not None,
    )
    return row


def _int(value) -> int | None:
    if isinstance(value, bool):
        return int(value)
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _float(value) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None
