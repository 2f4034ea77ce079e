"""The session page's two Hermes reads (the row and its messages), made at once.

They are independent, so the page waits for the slower of the two rather
than their sum. The page takes one bulkhead slot for both
(``HermesClient.page_slot``: a page is one thread against the endpoint's
cap, and a full bulkhead answers "busy" before any call). The messages call
runs on a small shared pool in a copy of the request's context: it keeps the
page's deadline (``hermes.deadline``), its slot and its client (a test's
transport). Errors keep their order: a failed row read is reported first, as
when the calls ran one after the other.
"""

from __future__ import annotations

import contextvars
from concurrent.futures import ThreadPoolExecutor

_POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="session-messages")


def session_and_messages(client, session_id: str):
    """``(client.get_session(id), client.get_messages(id))``, both in flight at once."""
    with client.page_slot("session_get"):
        context = contextvars.copy_context()
        messages = _POOL.submit(context.run, client.get_messages, session_id)
        try:
            session = client.get_session(session_id)
        except BaseException:
            messages.cancel()
            if not messages.cancelled():
                messages.exception()  # wait: nothing runs for this page after it answers
            raise
        return session, messages.result()
