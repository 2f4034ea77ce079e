"""The endpoints' probe round: every endpoint asked, every ``HERMES_UI_ENDPOINT_WATCH_SECONDS``.

A Hermes without the session API, or one upgraded since, is known without
anyone pressing *Probe now*, and a probe that changes an endpoint's
reachability sends ``endpoint.down`` or ``endpoint.up`` (``probes.store``).
"""

from __future__ import annotations

import logging
from datetime import timedelta

from django.conf import settings
from django.utils import timezone

from hermes_ui.endpoint_status import probes, session_api
from hermes_ui.endpoint_status.models import EndpointProbe
from hermes_ui.platform.endpoints import Endpoint, all_endpoints
from hermes_ui.platform.outages import log_failure

log = logging.getLogger("hermes_ui.background")


def due(endpoints: list[Endpoint]) -> list[Endpoint]:
    cutoff = timezone.now() - timedelta(seconds=settings.HERMES_PROBE_CACHE_SECONDS)
    fresh = {
        (p.endpoint, p.endpoint_fp)
        for p in EndpointProbe.objects.filter(checked_at__gte=cutoff).only(
            "endpoint", "endpoint_fp"
        )
    }
    return [ep for ep in endpoints if (ep.id, ep.fingerprint) not in fresh]


def probe_quietly(endpoints: list[Endpoint] | None = None) -> list[probes.Probe]:
    """Probe the endpoints that are due; never raises (a worker has nobody to show it to)."""
    try:
        found = probes.refresh(due(all_endpoints() if endpoints is None else endpoints))
    except Exception:
        log_failure(log, "endpoint probes failed")
        return []
    _tell(found)
    return found


def probe_round() -> int:
    """Probe every endpoint (the scheduled round); how many are unreachable."""
    found = probes.refresh(all_endpoints())
    _tell(found)
    return sum(not each.reachable for each in found)


def _tell(found: list[probes.Probe]) -> None:
    for each in found:
        if each.no_session_api:
            log.warning("%s", session_api.sentence(session_api.notice(each.endpoint, each.version)))


def has_session_api(endpoint: Endpoint) -> bool:
    """False when the stored probe says the endpoint has none (its sync is skipped)."""
    return session_api.absent(endpoint) is None
