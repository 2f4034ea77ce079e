"""Probing every configured endpoint at once, each with its own short timeout.

A probe asks ``/health`` (reachable, version) and ``/v1/capabilities``
(whether the key is accepted, which features and operations the server
reports). One endpoint that is down or slow costs its own timeout; the
others answer meanwhile and the page shows them all.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from django.conf import settings
from django.utils import timezone

from hermes_ui.endpoint_status.capabilities import missing_operations
from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.endpoints import Endpoint
from hermes_ui.hermes import HermesError
from hermes_ui.hermes.client import probe_client


@dataclass
class Probe:
    endpoint: Endpoint
    reachable: bool = False
    version: str = ""
    key_accepted: bool | None = None
    error_code: str = ""
    features: dict = field(default_factory=dict)
    operations: list[str] = field(default_factory=list)

    @property
    def missing(self) -> list[str]:
        return missing_operations(self.operations) if self.key_accepted else []

    @property
    def enabled_features(self) -> list[str]:
        return sorted(name for name, value in self.features.items() if value is True)

    @property
    def disabled_features(self) -> list[str]:
        return sorted(name for name, value in self.features.items() if value is False)


def probe(endpoint: Endpoint, client=None) -> Probe:
    """Ask one endpoint about itself. Never raises for a Hermes failure."""
    found = Probe(endpoint)
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
        return found
    finally:
        client.close()


def store(found: Probe) -> None:
    """Keep the answer, so pages can gate features without asking again."""
    values = {"checked_at": timezone.now(), "reachable": found.reachable,
              "version": found.version, "key_accepted": found.key_accepted,
              "error_code": found.error_code}  # fmt: skip
    if found.key_accepted:
        # Without an answer from /v1/capabilities the previous one stands.
        values.update(features=found.features, operations=found.operations)
    EndpointProbe.objects.update_or_create(**found.endpoint.scope(), defaults=values)


def probe_all(endpoints: list[Endpoint]) -> list[Probe]:
    """Every endpoint probed concurrently, in the order given."""
    if not endpoints:
        return []
    # Only HTTP runs in the worker threads; the answers are stored here, on
    # this request's own database connection.
    with ThreadPoolExecutor(max_workers=min(8, len(endpoints))) as pool:
        # The clients are made here: a test's transport override is per thread.
        clients = [probe_client(ep, settings.HERMES_PROBE_TIMEOUT) for ep in endpoints]
        found = list(pool.map(probe, endpoints, clients))
    for each in found:
        store(each)
    return found
