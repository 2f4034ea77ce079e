"""Every endpoint probed on a round, so ``endpoint.down`` and ``endpoint.up`` are sent
when Hermes goes away or comes back, not only when someone presses "Probe now".

A task of the task queue (``HERMES_UI_ENDPOINT_WATCH_SECONDS``, 0: off),
scheduled after ``migrate``; a probe that changes an endpoint's reachability
sends the event (``probes.store``).
"""

from __future__ import annotations

from django.conf import settings
from django_tasks import task

from hermes_ui.platform import task_rounds


@task()
def watch_round() -> int:
    """Probe every endpoint; returns how many are unreachable."""
    from hermes_ui.endpoint_status import probes
    from hermes_ui.platform.endpoints import all_endpoints

    seconds = settings.HERMES_UI_ENDPOINT_WATCH_SECONDS
    if not seconds:
        return 0
    task_rounds.schedule(watch_round, seconds)
    return sum(not found.reachable for found in probes.refresh(all_endpoints()))


def start(**kwargs) -> None:
    if settings.HERMES_UI_ENDPOINT_WATCH_SECONDS:
        task_rounds.ensure(watch_round)
