"""The stored probes, read once per request.

The session-API gate, the layout's banner and the chat box's capability
questions all read ``EndpointProbe`` rows; a page reads them in one query
(``platform.request_memo``), the probe of every configured endpoint at once.
"""

from __future__ import annotations

from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.platform import request_memo
from hermes_ui.platform.endpoints import Endpoint, all_endpoints
from hermes_ui.platform.prepared import Prepared

_KEY = "endpoint_status.probes"
# Every page reads them (the gate, the layout's banner): compiled once (platform.prepared).
_PROBES = Prepared(lambda endpoints: EndpointProbe.objects.filter(endpoint__in=endpoints))


def probes() -> dict[tuple[str, str], EndpointProbe]:
    """Every configured endpoint's stored probe, by (endpoint id, fingerprint)."""
    return request_memo.remember(_KEY, _read)


def probe_of(endpoint: Endpoint) -> EndpointProbe | None:
    key = (endpoint.id, endpoint.fingerprint)
    if key not in _configured():
        return EndpointProbe.objects.filter(**endpoint.scope()).first()
    return probes().get(key)


def forget() -> None:
    """A probe was written: this request reads the rows again."""
    request_memo.forget(_KEY)


def _configured() -> set[tuple[str, str]]:
    return {(ep.id, ep.fingerprint) for ep in all_endpoints()}


def _read() -> dict[tuple[str, str], EndpointProbe]:
    wanted = _configured()
    rows = _PROBES.instances(sorted({ep for ep, _ in wanted}))
    return {(p.endpoint, p.endpoint_fp): p for p in rows if (p.endpoint, p.endpoint_fp) in wanted}
