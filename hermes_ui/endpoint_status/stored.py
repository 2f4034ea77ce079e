"""The stored probes: the session-API gate, the layout's banner and the chat box read them."""

from __future__ import annotations

from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.platform.endpoints import Endpoint, all_endpoints
from hermes_ui.platform.prepared import Prepared

# Every page reads them (the gate, the layout's banner): compiled once (platform.prepared).
_PROBES = Prepared(lambda endpoints: EndpointProbe.objects.filter(endpoint__in=endpoints))


def probes() -> dict[tuple[str, str], EndpointProbe]:
    """Every configured endpoint's stored probe, by (endpoint id, fingerprint), in one query."""
    wanted = _configured()
    rows = _PROBES.instances(sorted({ep for ep, _ in wanted}))
    return {(p.endpoint, p.endpoint_fp): p for p in rows if (p.endpoint, p.endpoint_fp) in wanted}


def probe_of(endpoint: Endpoint) -> EndpointProbe | None:
    key = (endpoint.id, endpoint.fingerprint)
    if key not in _configured():
        return EndpointProbe.objects.filter(**endpoint.scope()).first()
    return probes().get(key)


def _configured() -> set[tuple[str, str]]:
    return {(ep.id, ep.fingerprint) for ep in all_endpoints()}
