"""Whether an endpoint has the session API at all, and how to say it when it has not."""

from __future__ import annotations

from django.urls import reverse

from hermes_ui.endpoint_status import probes, stored
from hermes_ui.hermes.contract import CONTRACT_OPERATIONS, missing_operations
from hermes_ui.platform.endpoints import Endpoint, all_endpoints

NEEDED = "0.15"
NO_SESSION_API = "no_session_api"


def absent_in(key_accepted, operations, error_code: str) -> bool:
    """From a probe's fields: no session API (none of the nine operations, or a plain 404)."""
    if error_code == NO_SESSION_API:
        return True
    return bool(key_accepted) and len(missing_operations(operations)) == len(CONTRACT_OPERATIONS)


def version_label(version: str) -> str:
    """What the server says its version is; /health has carried it since 0.16."""
    return f"version {version}" if version else "no version, so it is older than 0.16"


def notice(endpoint: Endpoint, version: str) -> dict:
    return {
        "endpoint": endpoint,
        "url": endpoint.public_url,
        "needed": NEEDED,
        "version": version,
        "version_label": version_label(version),
        "endpoints_url": reverse("endpoint_list"),
    }


def sentence(item: dict) -> str:
    """The one sentence, as plain text (the ``make run`` banner, logs)."""
    return (
        f"Hermes at {item['url']} has no session API (it needs hermes-agent {item['needed']} "
        f"or newer; it reports {item['version_label']})"
    )


def absent(endpoint: Endpoint) -> dict | None:
    """The notice for this endpoint when its last probe says it has no session API."""
    probe = stored.probe_of(endpoint)
    if probe is None or not absent_in(probe.key_accepted, probe.operations, probe.error_code):
        return None
    return notice(endpoint, probe.version)


def absent_endpoints(endpoints: list[Endpoint] | None = None) -> list[dict]:
    """Every configured endpoint without the session API, from the stored probes (one query)."""
    endpoints = all_endpoints() if endpoints is None else endpoints
    if not endpoints:
        return []
    found, probes = [], stored.probes()  # every configured endpoint's, in one query
    configured = {(ep.id, ep.fingerprint) for ep in all_endpoints()}
    for ep in sorted(endpoints, key=lambda e: e.id):
        key = (ep.id, ep.fingerprint)
        probe = probes.get(key) if key in configured else stored.probe_of(ep)
        if probe is not None and absent_in(probe.key_accepted, probe.operations, probe.error_code):
            found.append(notice(ep, probe.version))
    return found


def explain(sender, error, endpoint: Endpoint, **kwargs) -> dict:
    """For ``web.signals.failure_shown``: a list call met the plain 404. Only the
    endpoint's probe concludes that it has no session API (its answer is kept for
    the gate): what one request met is that request's failure."""
    if error.code != NO_SESSION_API:
        return {}
    found = absent(endpoint)
    if found is None:
        probes.store(probes.probe(endpoint))
        found = absent(endpoint)
    return {"absent": found} if found else {}
