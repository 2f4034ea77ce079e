"""The input snapshot of a deletion: what the session looked like when it was asked for.

It holds a projection of the exact row (``session_get``), the number of
active messages and a digest over them (``session_messages``), never the
messages themselves. User text in the row (the title, the user id) is kept
only as a fingerprint, so a deleted session's words do not live on here.
Execution re-reads the session and compares: any difference voids the
approval, because the approver saw something else.
"""

from __future__ import annotations

from hermes_ui.audit.redact import describe_text
from hermes_ui.hermes.client import HermesClient
from hermes_ui.hermes.session import Session
from hermes_ui.platform.digests import json_digest

# The fields of the row that define "the same session" for an approval.
PROJECTION = (
    "id",
    "source",
    "user_id",
    "model",
    "title",
    "started_at",
    "ended_at",
    "end_reason",
    "message_count",
    "tool_call_count",
    "api_call_count",
    "input_tokens",
    "output_tokens",
    "cache_read_tokens",
    "cache_write_tokens",
    "reasoning_tokens",
    "estimated_cost_usd",
    "actual_cost_usd",
    "parent_session_id",
    "has_system_prompt",
    "has_model_config",
)
FINGERPRINTED = ("title", "user_id")
_LABELS = {
    "title": "title",
    "user_id": "user id",
    "end_reason": "close reason",
    "ended_at": "end time",
    "message_count": "message count",
    "tool_call_count": "tool call count",
    "api_call_count": "API call count",
    "parent_session_id": "parent",
}


def project(row: dict) -> dict:
    projected = {name: row.get(name) for name in PROJECTION}
    for name in FINGERPRINTED:
        projected[name] = describe_text(projected[name])
    return projected


def digest_messages(session_id: str, messages: list) -> str:
    """A digest of the active messages: equal iff the transcript Hermes returns is equal."""
    return json_digest({"session_id": session_id, "data": messages})


def read(client: HermesClient, session_id: str) -> tuple[Session, dict]:
    """The session as Hermes returns it, and the snapshot of the session now.

    Raises ``HermesError`` (for example ``NotFound``).
    """
    row = client.get_session(session_id)
    messages = client.get_messages(session_id)
    return row, {
        # Snapshots are stored as JSON, in the API's own field names.
        "row": project(row.as_row()),
        "active_message_count": len(messages["data"]),
        "digest": digest_messages(messages["session_id"], messages["data"]),
        "resolved_session_id": messages["session_id"],
    }


def take(client: HermesClient, session_id: str) -> dict:
    return read(client, session_id)[1]


def differences(before: dict, after: dict) -> list[str]:
    """What changed between two snapshots, in words that quote no user text."""
    changes = []
    old_row, new_row = before.get("row", {}), after.get("row", {})
    for name in PROJECTION:
        old, new = old_row.get(name), new_row.get(name)
        if old == new:
            continue
        label = _LABELS.get(name, name.replace("_", " "))
        if name in FINGERPRINTED or name in {"parent_session_id", "end_reason", "model"}:
            changes.append(f"{label} changed")
        elif isinstance(old, int | float | None) and isinstance(new, int | float | None):
            changes.append(f"{label} {_show(old)} → {_show(new)}")
        else:
            changes.append(f"{label} changed")
    if before.get("active_message_count") != after.get("active_message_count"):
        changes.append(
            f"active messages {before.get('active_message_count')} → "
            f"{after.get('active_message_count')}"
        )
    elif before.get("digest") != after.get("digest"):
        changes.append("the content of the active messages changed")
    if before.get("resolved_session_id") != after.get("resolved_session_id"):
        changes.append("the active transcript now lives in another session (compression)")
    return changes


def _show(value) -> str:
    return "none" if value is None else f"{value:,}" if isinstance(value, int) else str(value)
