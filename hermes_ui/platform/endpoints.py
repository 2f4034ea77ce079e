"""The Hermes API servers this dashboard may talk to.

Endpoints are fixed by the operator in the environment. A URL path carries
only the endpoint *id*; nothing a user submits can name a base URL or a key,
which is how the contract's "input cannot select a different endpoint" rule
holds here.
"""

import functools
import hashlib
import re
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.http import Http404

ENDPOINT_ID_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,39}$")
# A Hermes profile named at the end of an endpoint URL (``…/p/support``); the
# name rule is hermes_cli.profiles._PROFILE_ID_RE (hermes-agent 0.19.0).
_PROFILE_PATH = re.compile(r"/p/(?P<name>[a-z0-9][a-z0-9_-]{0,63})$")


@dataclass(frozen=True)
class Endpoint:
    id: str
    base_url: str
    api_key: str = field(repr=False)
    label: str = ""

    @property
    def display(self) -> str:
        return self.label or self.id

    @property
    def fingerprint(self) -> str:
        """With ``id``, the endpoint's identity: which Hermes database a record came from."""
        return url_fingerprint(self.base_url)

    @property
    def public_url(self) -> str:
        return public_url(self.base_url)

    @property
    def profile(self) -> str:
        """The Hermes profile this URL names (``…/p/<name>``); "" for the server's default.

        A multiplexing Hermes serves each profile under its own prefix, with
        its own ``state.db``: a separate database, so a separate endpoint.
        """
        found = _PROFILE_PATH.search(_parts(self.base_url)[2])
        return found.group("name") if found else ""

    def scope(self) -> dict[str, str]:
        """Model fields naming this identity: filter or create per-endpoint rows with it."""
        return {"endpoint": self.id, "endpoint_fp": self.fingerprint}


def _parts(base_url: str):
    parts = urlsplit(base_url.strip())
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:
        host = f"[{host}]"
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is not None and (scheme, port) not in (("http", 80), ("https", 443)):
        host = f"{host}:{port}"
    return scheme, host, parts.path.rstrip("/")


@functools.lru_cache(maxsize=64)
def url_fingerprint(base_url: str) -> str:
    """16 hex digits of the normalised base URL (scheme, host, port, path).

    Credentials, query and a trailing slash do not change which server, and
    so which database, an URL names; they are left out. Kept per URL: a pure
    function of it, asked a dozen times a page (every ``scope()``).
    """
    scheme, host, path = _parts(base_url)
    return hashlib.sha256(f"{scheme}://{host}{path}".encode()).hexdigest()[:16]


def public_url(base_url: str) -> str:
    """The base URL without anything secret (user info, query), for pages, logs and audit."""
    scheme, host, path = _parts(base_url)
    return f"{scheme}://{host}{path}"


def configured(endpoint_id: str, fingerprint: str) -> Endpoint | None:
    """The configured endpoint ``endpoint_id`` if it still has that identity, else None."""
    ep = settings.HERMES_ENDPOINTS.get(endpoint_id)
    return ep if ep is not None and ep.fingerprint == fingerprint else None


def parse_endpoints(
    *, default_id: str, url: str | None, key: str | None, extra: list[str], env: dict
) -> dict[str, Endpoint]:
    """Build the endpoint table from already-read environment values."""
    if not ENDPOINT_ID_RE.match(default_id):
        raise ImproperlyConfigured(
            f"HERMES_ENDPOINT_ID must match {ENDPOINT_ID_RE.pattern}, got {default_id!r}"
        )
    table: dict[str, Endpoint] = {}
    if url:
        if not key:
            raise ImproperlyConfigured("HERMES_API_URL is set but HERMES_API_KEY is empty")
        table[default_id] = Endpoint(default_id, url, key)
    for item in extra:
        endpoint_id, sep, extra_url = item.partition("=")
        endpoint_id = endpoint_id.strip()
        if not sep or not ENDPOINT_ID_RE.match(endpoint_id) or not extra_url.strip():
            raise ImproperlyConfigured(
                f"HERMES_EXTRA_ENDPOINTS entries look like id=https://host:port, got {item!r}"
            )
        if endpoint_id in table:
            raise ImproperlyConfigured(f"endpoint id {endpoint_id!r} is configured twice")
        key_name = "HERMES_API_KEY_" + endpoint_id.upper().replace("-", "_")
        extra_key = env.get(key_name)
        if not extra_key:
            raise ImproperlyConfigured(f"endpoint {endpoint_id!r} needs its key in {key_name}")
        table[endpoint_id] = Endpoint(endpoint_id, extra_url.strip().rstrip("/"), extra_key)
    return table


def all_endpoints() -> list[Endpoint]:
    return list(settings.HERMES_ENDPOINTS.values())


def get_endpoint(endpoint_id: str) -> Endpoint:
    """The endpoint named in a URL, or a 404 for an id the operator did not configure."""
    try:
        return settings.HERMES_ENDPOINTS[endpoint_id]
    except KeyError:
        raise Http404(f"No Hermes endpoint is configured with id {endpoint_id!r}.") from None
