"""Gating optional features on what an endpoint reports in ``/v1/capabilities``.

Never on a version string: a newer server adds keys, an older or trimmed one
lacks them. The answer of the last "Probe now" on the endpoints page is kept
(``EndpointProbe``) so a page can decide without asking Hermes again (merely
viewing the endpoints page records nothing); an endpoint never probed yet is
assumed to offer what the contract's nine operations need.
"""

from __future__ import annotations

from hermes_ui.endpoint_status import stored
from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.hermes.contract import CONTRACT_OPERATIONS, FORK, STREAMING, missing_operations
from hermes_ui.platform.endpoints import Endpoint

__all__ = [
    "CONTRACT_OPERATIONS",
    "FORK",
    "STREAMING",
    "last_probe",
    "missing_operations",
    "offers",
    "reports",
]


def last_probe(endpoint: Endpoint) -> EndpointProbe | None:
    return stored.probe_of(endpoint)


def offers(endpoint: Endpoint, feature: str, probe=...) -> bool:
    """Whether the endpoint reported ``feature`` as true (True when it was never asked).
    ``probe``: its ``last_probe``, when the caller asks several questions (one query)."""
    probe = last_probe(endpoint) if probe is ... else probe
    if probe is None or not probe.features:
        return True
    return probe.features.get(feature) is True


def reports(endpoint: Endpoint, feature: str, probe=...) -> bool:
    """Whether the endpoint reported ``feature`` with any value (a header name, a flag);
    True when it was never asked. For keys that are not booleans, e.g.
    ``session_key_header``: without it the memory-scope field is not offered."""
    probe = last_probe(endpoint) if probe is ... else probe
    if probe is None or not probe.features:
        return True
    return bool(probe.features.get(feature))
