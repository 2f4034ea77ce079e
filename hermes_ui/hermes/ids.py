"""Session-id rules applied before any request leaves the dashboard."""

import re
import unicodedata
from urllib.parse import quote

MAX_ID_LENGTH = 256
_PATH_FORBIDDEN = re.compile(r"[\r\n\x00]")
# Hermes' router (aiohttp's ``{session_id}`` pattern, ``[^{}/]+``) matches no path
# segment holding a brace, percent-encoded or not, and refuses a request line over
# 8190 bytes: such a request never reaches the session API. Measured on 0.19.0.
UNROUTABLE = "{}"
MAX_ENCODED_ID = 6000


class IdError(ValueError):
    """A session id that must not be sent. The message is safe to show."""


def check_path_id(session_id: str) -> str:
    """Any id used in a URL path: CR, LF and NUL are refused outright."""
    if not isinstance(session_id, str) or session_id == "":
        raise IdError("A session id is required.")
    if _PATH_FORBIDDEN.search(session_id):
        raise IdError("Session ids cannot contain line breaks or NUL characters.")
    return session_id


def encode_path_id(session_id: str) -> str:
    """Percent-encode one path segment; ``/`` and ``%`` included.

    The ids ``.`` and ``..`` are dot segments that URL libraries (httpx
    included) would resolve away, turning ``/api/sessions/../fork`` into
    ``/api/fork``; their dots are percent-encoded so they stay one segment.
    """
    encoded = quote(check_path_id(session_id), safe="")
    if any(ch in session_id for ch in UNROUTABLE):
        raise IdError("Hermes cannot route a session id holding '{' or '}'.")
    if len(encoded) > MAX_ENCODED_ID:
        raise IdError(
            f"Hermes cannot route a session id this long (at most {MAX_ENCODED_ID:,} "
            "characters once percent-encoded)."
        )
    if encoded in {".", ".."}:
        return encoded.replace(".", "%2E")
    return encoded


def _has_control(value: str) -> bool:
    return any(unicodedata.category(ch) == "Cc" for ch in value)


def check_new_id(raw: str | None) -> str | None:
    """The create rules, applied to create *and* fork ids.

    ``None`` or an empty string means "let the provider generate one". The
    provider's fork handler checks much less than its create handler (it
    accepts ``../x`` and ``a/b``), so the stricter create rules apply to both.
    """
    if raw is None or raw == "":
        return None
    value = raw.strip()
    if not value:
        raise IdError("A session id cannot be only whitespace; leave it empty to generate one.")
    if len(value) > MAX_ID_LENGTH:
        raise IdError(f"A session id can have at most {MAX_ID_LENGTH} characters.")
    if _has_control(value):
        raise IdError("A session id cannot contain control characters.")
    if ".." in value or "/" in value or "\\" in value:
        raise IdError("A session id cannot contain '..', '/' or '\\'.")
    if any(ch in value for ch in UNROUTABLE):
        raise IdError("A session id cannot contain '{' or '}': Hermes could not route it.")
    if len(value) >= 2 and value[0].isalpha() and value[1] == ":":
        # The provider's own test: any letter (not only ASCII) then a colon.
        raise IdError("A session id cannot start with a drive prefix such as 'C:'.")
    return value
