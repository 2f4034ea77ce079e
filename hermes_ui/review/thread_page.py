"""The page of one notes thread (without JavaScript): the message it is about, as text."""

from __future__ import annotations

from hermes_ui.hermes import client_for, transcript
from hermes_ui.platform.endpoints import Endpoint
from hermes_ui.review import note_marks


def find_row(messages: dict, message_id: int) -> dict | None:
    """The row of ``message_id`` in a ``get_messages`` answer, or None."""
    for row in messages.get("data", []):
        if isinstance(row, dict) and row.get("id") == message_id:
            return row
    return None


def note_target(ep: Endpoint, session_id: str, message_id: int | None) -> str | None:
    """The session a note is kept on: the session itself, or, for a message, the
    session whose transcript holds it (a compression root's messages are its tip's);
    None for a message the transcript lacks. Raises ``HermesError``."""
    client = client_for(ep)
    if message_id is None:
        return client.get_session(session_id).id
    found = client.get_messages(session_id)
    return found["session_id"] if find_row(found, message_id) is not None else None


def page_context(request, ep: Endpoint, session_id: str, message_id: int | None) -> dict:
    """The thread and what it is about; raises ``HermesError`` when Hermes cannot say."""
    client = client_for(ep)
    message = None
    if message_id is None:
        session = client.get_session(session_id)
    else:
        found = client.get_messages(session_id)
        row = find_row(found, message_id)
        session_id = found["session_id"]  # where the message lives (a root shows its tip's)
        session = client.get_session(session_id)
        if row is not None:
            message = {"role": str(row.get("role") or "?"), "text": transcript.plain_text(row)}
    return {
        "endpoint": ep,
        "session": session,
        "message": message,
        "missing_message": message_id is not None and message is None,
        "thread": note_marks.thread(request, ep, session_id, message_id),
    }
