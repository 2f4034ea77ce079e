"""The stored probes: the session-API gate, the layout's banner and the chat box read them."""

from __future__ import annotations

from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.platform.endpoints import Endpoint, all_endpoints


def probes() -> dict[tuple[str, str], EndpointProbe]:
    """Every configured endpoint's stored probe, by (endpoint id, fingerprint), in one query."""
    wanted = _configured()
    rows = EndpointProbe.objects.filter(endpoint__in={ep for ep, _ in wanted})
    return {(p.endpoint, p.endpoint_fp): p for p in rows if (p.endpoint, p.endpoint_fp) in wanted}


def probe_of(endpoint: Endpoint) -> EndpointProbe | None:
    return EndpointProbe.objects.filter(**endpoint.scope()).first()


def _configured() -> set[tuple[str, str]]:
    return {(ep.id, ep.fingerprint) for ep in all_endpoints()}
