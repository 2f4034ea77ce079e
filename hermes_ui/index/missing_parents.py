"""Parents Hermes did not find when read by id, remembered for an hour per process.

A sync reads unlisted (archived) parents by id; one Hermes answers 404 or
400 for is not asked again by this process for ``RETRY_AFTER`` seconds.
"""

from hermes_ui.platform.endpoints import Endpoint

RETRY_AFTER = 3600  # seconds

_missing: dict[tuple[str, str, str], float] = {}


def recent(endpoint: Endpoint, parent_id: str, now: float) -> bool:
    """Whether ``parent_id`` was missing less than ``RETRY_AFTER`` seconds before ``now``."""
    return now - _missing.get(_key(endpoint, parent_id), -1e9) <= RETRY_AFTER


def remember(endpoint: Endpoint, parent_id: str, now: float) -> None:
    _missing[_key(endpoint, parent_id)] = now


def _key(endpoint: Endpoint, parent_id: str) -> tuple[str, str, str]:
    return (endpoint.id, endpoint.fingerprint, parent_id)
