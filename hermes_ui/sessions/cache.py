"""Where a session's transcript is cached between the page and its "load more" chunks."""

import hashlib

from hermes_ui.endpoints import Endpoint


def transcript_cache_key(ep: Endpoint, session_id: str) -> str:
    """The cache key of a session's transcript (``sessions.erase`` drops it too).

    The endpoint's identity is part of the key: an id re-pointed at another
    Hermes never serves the old server's cached transcript.
    """
    digest = hashlib.sha256(session_id.encode("utf-8", "surrogatepass")).hexdigest()
    return f"messages:{ep.id}:{ep.fingerprint}:{digest}"
