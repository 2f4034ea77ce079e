"""The session page's two Hermes reads (the row and its messages), made at once.

They are independent, so the page waits for the slower of the two rather than
their sum; both take the page's one bulkhead slot, and the messages read runs
in a copy of the request's context (its deadline, slot and client).
"""

from __future__ import annotations

import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor

from hermes_ui.hermes.messages import IncompleteTranscript

_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="session-messages")


def session_and_messages(client, session_id: str, *, latest: int | None = None):
    """``(session, messages, incomplete)``: the row and the transcript, read at once.

    A failed row read is raised first, as if the calls ran in turn. ``incomplete``
    is the ``IncompleteTranscript`` of a transcript that failed half-way (``messages``
    is then what was read). With ``latest``, only the last ``latest`` messages are
    asked for where the server pages (``latest_only`` is then set in the answer)."""
    read = functools.partial(_latest, client, latest) if latest else client.get_messages
    with client.page_slot("session_get"):
        messages = _POOL.submit(contextvars.copy_context().run, _whole_or_part, read, session_id)
        try:
            session = client.get_session(session_id)
        except BaseException:
            if not messages.cancel():
                messages.exception()  # wait: nothing runs for this page after it answers
            raise
        return (session, *messages.result())


def _whole_or_part(read, session_id: str) -> tuple[dict, IncompleteTranscript | None]:
    try:
        return read(session_id), None
    except IncompleteTranscript as error:
        return error.partial, error


def _latest(client, count: int, session_id: str) -> dict:
    payload, whole = client.latest_messages(session_id, count)
    return payload if whole else {**payload, "latest_only": True}
