"""Review rules after an index refresh, as a task: the index round enqueues, a worker runs.

Running a rule twice adds nothing twice (``rules.run`` checks what the queue
holds and the item table's constraints), so a task resumed after its worker
died simply runs again.
"""

from __future__ import annotations

import logging

from django_tasks import task

from hermes_ui.platform.endpoints import configured
from hermes_ui.platform.outages import log_failure
from hermes_ui.review import rules

log = logging.getLogger("hermes_ui.review")


@task()
def run_rules(endpoint_id: str, fingerprint: str) -> int:
    """Every active rule of the endpoint's queues; how many items they added."""
    endpoint = configured(endpoint_id, fingerprint)
    if endpoint is None:  # reconfigured since the refresh: its rules wait for the next one
        return 0
    added = rules.run_endpoint(endpoint)
    if added:
        log.info("review rules endpoint=%s added=%d", endpoint_id, added)
    return added


def enqueue_for(endpoint) -> None:
    """Queue the rules of ``endpoint`` (after a sync); failures are logged, never raised."""
    try:
        run_rules.enqueue(endpoint.id, endpoint.fingerprint)
    except Exception:
        log_failure(log, "review rules endpoint=%s could not be queued", endpoint.id)
