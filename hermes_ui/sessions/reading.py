"""The session page's two Hermes reads (the row and its messages), made at once.

They are independent, so the page waits for the slower of the two rather
than their sum, and draws what needs only the row (the actions, the side
panels) while the transcript is still on its way (``in_flight``). The page
takes one bulkhead slot for both (``HermesClient.page_slot``: a page is one
thread against the endpoint's cap, and a full bulkhead answers "busy" before
any call). The messages call runs on a small shared pool in a copy of the
request's context: it keeps the page's deadline (``hermes.deadline``), its
slot and its client (a test's transport). Errors keep their order: a failed
row read is reported first, as when the calls ran one after the other.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="session-messages")


@contextlib.contextmanager
def in_flight(client, session_id: str, *, latest: int | None = None):
    """``(session, messages)``: the row, read; ``messages()`` waits for the transcript
    (``client.get_messages(id)``, its error raised there). Both reads are in flight
    at once; nothing of this page's runs after the block (an unfinished read is
    cancelled or waited for).

    With ``latest``, only the last ``latest`` messages are asked for where the
    server pages (``latest_only`` is then set in the answer): the latest turns
    of a long transcript in the time of one page."""
    with client.page_slot("session_get"):
        context = contextvars.copy_context()
        read = functools.partial(_latest, client, latest) if latest else client.get_messages
        messages = _POOL.submit(context.run, read, session_id)
        try:
            yield client.get_session(session_id), messages.result
        finally:
            if not messages.done() and not messages.cancel():
                messages.exception()  # wait: nothing runs for this page after it answers


def _latest(client, count: int, session_id: str) -> dict:
    payload, whole = client.latest_messages(session_id, count)
    return payload if whole else {**payload, "latest_only": True}


def session_and_messages(client, session_id: str):
    """``(client.get_session(id), client.get_messages(id))``, both in flight at once."""
    with in_flight(client, session_id) as (session, messages):
        return session, messages()
