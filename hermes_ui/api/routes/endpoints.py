"""GET /endpoints: each endpoint's id, health, version and breaker state: those the
person (and the token's endpoint limit) may see, no others."""

from ninja import Router

from hermes_ui.access.rules import access_of
from hermes_ui.endpoint_status import probes
from hermes_ui.hermes import breaker
from hermes_ui.index import freshness
from hermes_ui.platform.endpoints import all_endpoints
from hermes_ui.web.roles import SUPPORT, require_role

router = Router(tags=["endpoints"])


def _iso(value):
    return value.isoformat() if value else None


@router.get("/endpoints", summary="Configured endpoints, their health and breakers")
def endpoint_list(request):
    """The endpoints page's table (a probe answer at most ``HERMES_PROBE_CACHE_SECONDS``
    old; only endpoints without one are asked)."""
    require_role(request.user, SUPPORT)
    access = access_of(request.user)
    shown = set(access.endpoint_ids())
    rows = []
    for probe in probes.recent([ep for ep in all_endpoints() if ep.id in shown]):
        ep, state = probe.endpoint, breaker.status(probe.endpoint)
        fresh = freshness.of(ep)
        rows.append(
            {
                "id": ep.id,
                "reachable": probe.reachable,
                "version": probe.version or None,
                "key_accepted": probe.key_accepted,
                "error_code": probe.error_code or None,
                "checked_at": _iso(probe.checked_at),
                "features": probe.enabled_features,
                "missing_operations": probe.missing,
                "breaker": {
                    "state": "open" if state.open else "closed",
                    "failures": state.failures,
                    "open_since": _iso(state.since),
                    "next_trial_in": state.next_trial_in,
                },
                "index": {
                    # The endpoint's own count is not a source-limited person's to see.
                    "sessions": None if access.source_limited(ep.id) else fresh.total,
                    "indexed_at": _iso(fresh.indexed_at),
                    "running": fresh.running,
                },
            }
        )
    return {"data": rows}
