"""Probing every configured endpoint at once, each with its own short timeout."""

from __future__ import annotations

import hashlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from datetime import datetime

from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.hermes import HermesError
from hermes_ui.hermes.client import probe_client
from hermes_ui.hermes.contract import missing_operations
from hermes_ui.index.freshness import age
from hermes_ui.platform import events
from hermes_ui.platform.endpoints import Endpoint


@dataclass
class Probe:
    endpoint: Endpoint
    reachable: bool = False
    version: str = ""
    key_accepted: bool | None = None
    error_code: str = ""
    features: dict = field(default_factory=dict)
    operations: list[str] = field(default_factory=list)
    checked_at: datetime | None = None

    @property
    def age(self) -> str:
        return age(self.checked_at)

    @property
    def missing(self) -> list[str]:
        return missing_operations(self.operations) if self.key_accepted else []

    @property
    def no_session_api(self) -> bool:
        from hermes_ui.endpoint_status.session_api import absent_in

        return absent_in(self.key_accepted, self.operations, self.error_code)

    @property
    def version_shown(self) -> str:
        """The version, or what its absence says (/health carries it since 0.16)."""
        if self.version:
            return self.version
        return "before 0.16 (no version reported)" if self.reachable else ""

    @property
    def enabled_features(self) -> list[str]:
        return sorted(name for name, value in self.features.items() if value is True)

    @property
    def disabled_features(self) -> list[str]:
        return sorted(name for name, value in self.features.items() if value is False)

    @property
    def auto_prune(self) -> dict:
        """What ``/v1/capabilities`` says of Hermes' own pruning of old sessions: every
        feature whose name mentions pruning, as reported (0.19 reports none)."""
        return {name: value for name, value in self.features.items() if "prune" in name.lower()}


def probe(endpoint: Endpoint, client=None) -> Probe:
    """Ask one endpoint about itself. Never raises for a Hermes failure."""
    found = Probe(endpoint, checked_at=timezone.now())
    client = client or probe_client(endpoint, settings.HERMES_PROBE_TIMEOUT)
    try:
        try:
            health = client.health()
        except HermesError as error:
            found.error_code = error.code
            return found
        found.reachable = True
        found.version = str(health.get("version") or "")[:60]
        try:
            caps = client.capabilities()
        except HermesError as error:
            found.error_code = error.code
            found.key_accepted = False if error.status == 401 else None
            return found
        found.key_accepted = True
        found.features = {k: v for k, v in caps["features"].items() if isinstance(k, str)}
        found.operations = sorted(str(name) for name in caps["endpoints"])
        if not found.version:  # 0.15 has none in /health; a capabilities version if any
            found.version = str(caps.get("version") or caps.get("hermes_version") or "")[:60]
        return found
    finally:
        client.close()


def store(found: Probe) -> None:
    """Keep the answer, so pages can gate features without asking again."""
    values = {
        "checked_at": found.checked_at or timezone.now(),
        "reachable": found.reachable,
        "version": found.version,
        "key_accepted": found.key_accepted,
        "error_code": found.error_code,
    }
    if found.key_accepted:
        # Without an answer from /v1/capabilities the previous one stands.
        values.update(features=found.features, operations=found.operations)
    before = (
        EndpointProbe.objects.filter(**found.endpoint.scope())
        .values_list("reachable", flat=True)
        .first()
    )
    EndpointProbe.objects.update_or_create(**found.endpoint.scope(), defaults=values)  # type: ignore[arg-type]
    if before is not None and before != found.reachable:
        events.emit(
            events.ENDPOINT_UP if found.reachable else events.ENDPOINT_DOWN,
            endpoint=found.endpoint.id,
            ids={"endpoint": found.endpoint.id},
        )


def recent(endpoints: list[Endpoint]) -> list[Probe]:
    """Every endpoint's answer of the last ``HERMES_PROBE_CACHE_SECONDS``, in the order
    given; only the endpoints without one are asked (at once). Writes no row."""
    found = {ep.id: _cached(ep) for ep in endpoints}
    missing = [ep for ep in endpoints if found[ep.id] is None]
    for each in _ask(missing):
        _remember(each)
        found[each.endpoint.id] = each
    return [found[ep.id] for ep in endpoints]  # type: ignore[misc]


def refresh(endpoints: list[Endpoint]) -> list[Probe]:
    """Ask every endpoint now ("Probe now"), keep the answers for the page and record
    them for feature gating."""
    found = _ask(endpoints)
    for each in found:
        _remember(each)
        store(each)
    return found


def _ask(endpoints: list[Endpoint]) -> list[Probe]:
    """Every endpoint probed concurrently, in the order given."""
    if not endpoints:
        return []
    # Only HTTP runs in the worker threads; nothing there touches the database.
    with ThreadPoolExecutor(max_workers=min(8, len(endpoints))) as pool:
        # The clients are made here: a test's transport override is per thread.
        clients = [probe_client(ep, settings.HERMES_PROBE_TIMEOUT) for ep in endpoints]
        return list(pool.map(probe, endpoints, clients))


def _cache_key(endpoint: Endpoint) -> str:
    """Per endpoint id, server and key: a changed URL or key is never answered from the
    old one's probe. The key appears only as part of a digest."""
    key = hashlib.sha256(endpoint.api_key.encode()).hexdigest()[:16]
    return f"endpoint-probe:{endpoint.id}:{endpoint.fingerprint}:{key}"


def _remember(found: Probe) -> None:
    values = asdict(found)
    del values["endpoint"]  # it holds the key; the page needs none of it
    cache.set(_cache_key(found.endpoint), values, settings.HERMES_PROBE_CACHE_SECONDS)


def _cached(endpoint: Endpoint) -> Probe | None:
    values = cache.get(_cache_key(endpoint))
    return Probe(endpoint, **values) if isinstance(values, dict) else None
