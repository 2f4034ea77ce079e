"""Is the turn really in the transcript? A successful chat answer does not prove it.

After a turn the dashboard reads ``session_messages`` for the session the
turn ended in and looks, among the rows newer than the ones it saw before
sending, for the user's message and the assistant's answer after it. Where
Hermes pages transcripts, the last page holds them, so that is all it reads.
"""

from __future__ import annotations

from django.utils import timezone

from hermes_ui.chat.progress import content_text
from hermes_ui.hermes import HermesError

LAST_PAGE = 500  # the most a paging Hermes answers at once


def baseline(rows: list[dict]) -> int | None:
    """The newest message id before the turn (message ids only grow)."""
    ids = [r["id"] for r in rows if isinstance(r.get("id"), int)]
    return max(ids) if ids else None


def check(client, session_id: str, *, message, answer: str | None, after: int | None) -> dict:
    try:
        payload = _since(client, session_id, after)
    except HermesError as error:
        return {
            "status": "unknown",
            "code": error.code,
            "message": error.message,
            "session_id": session_id,
            "checked_at": _now(),
        }
    return evaluate(payload, message=message, answer=answer, after=after)


def _since(client, session_id: str, after: int | None) -> dict:
    """The transcript's rows from ``after`` on: the last page where the server pages and
    it reaches back that far (a turn's rows are at the end), else the whole transcript."""
    payload, whole = client.latest_messages(session_id, LAST_PAGE)
    rows = payload["data"]
    first = rows[0].get("id") if rows and isinstance(rows[0], dict) else None
    reaches = len(rows) < LAST_PAGE or (
        after is not None and isinstance(first, int) and first <= after
    )
    return payload if whole or reaches else client.get_messages(session_id)


def evaluate(payload: dict, *, message, answer: str | None, after: int | None) -> dict:
    rows = [r for r in payload.get("data", []) if isinstance(r, dict)]
    fresh = [r for r in rows if after is None or (isinstance(r.get("id"), int) and r["id"] > after)]
    sent = _norm(content_text(message))
    said = [_norm(content_text(row.get("content"))) for row in fresh]
    user_at = None
    for index, row in enumerate(fresh):
        if row.get("role") == "user" and (not sent or sent in said[index]):
            user_at = index  # the last match: earlier ones can be copies after compression
    assistant = None
    if user_at is not None:
        wanted = _norm(answer or "")
        for row, text in zip(fresh[user_at + 1 :], said[user_at + 1 :], strict=True):
            if row.get("role") == "assistant" and text and (not wanted or text == wanted):
                assistant = row
    user_row = fresh[user_at]["id"] if user_at is not None else None
    assistant_row = assistant["id"] if assistant else None
    if user_row and assistant_row:
        status = "verified"
    elif user_row:
        status = "user_only"
    else:
        status = "missing"
    return {
        "status": status,
        "session_id": payload.get("session_id", ""),
        "user_row": user_row,
        "assistant_row": assistant_row,
        "new_rows": len(fresh),
        "checked_at": _now(),
    }


def _norm(text: str) -> str:
    return " ".join((text or "").split())


def _now() -> str:
    return timezone.now().isoformat(timespec="seconds")
