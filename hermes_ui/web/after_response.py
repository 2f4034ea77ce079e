"""Work a GET can leave until its answer is sent (a read watermark, a counter).

``after(response, fn, ...)`` runs ``fn`` when the server closes the response:
after the last byte under uvicorn (Django's ASGI handler closes the response
once it has sent it), after the body under WSGI, and before the test client
returns. Django calls the response's resource closers there, before
``request_finished`` (so the database connection is still open). ``fn`` must
be quick; an exception is logged by its kind, never raised into the server.
"""

from __future__ import annotations

import functools
import logging

log = logging.getLogger(__name__)


def after(response, fn, /, *args, **kwargs):
    def run():
        try:
            fn(*args, **kwargs)
        except Exception as exc:  # the answer is sent: nobody to tell but the log
            log.warning("after-response work failed: %s", type(exc).__name__)

    # HttpResponseBase.close() calls each of these (Django >= 3.0).
    response._resource_closers.append(functools.wraps(fn)(run))
    return response
