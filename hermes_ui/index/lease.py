"""The sync lease: one sync of an endpoint at a time, across processes.

A sync holds it by heart-beating ``running_since`` on the state row; every
write of that row is fenced by the value it last wrote.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from django.db.models import Q
from django.utils import timezone

from hermes_ui.index.models import IndexSyncState
from hermes_ui.index.sync_state import state_for
from hermes_ui.platform.endpoints import Endpoint

LEASE = timedelta(minutes=5)  # a sync that stopped heart-beating this long is dead


class LeaseLost(Exception):
    """Another process took this endpoint's sync lease: this run stops writing."""


# Leases (state row, running_since) a database outage kept this process from
# releasing; the next ``acquire`` here lets them go instead of waiting ``LEASE``.
_stranded: list[tuple[int, datetime | None]] = []


def strand(pk: int, lease: datetime | None) -> None:
    _stranded.append((pk, lease))


def release_stranded() -> None:
    while _stranded:
        pk, lease = _stranded[-1]
        IndexSyncState.objects.filter(pk=pk, running_since=lease).update(
            running_since=None, progress={}
        )
        _stranded.pop()


def acquire(endpoint: Endpoint, full: bool) -> bool:
    """Take the endpoint's sync lease; False when a live sync holds it."""
    release_stranded()
    state_for(endpoint)
    now = timezone.now()
    free = Q(running_since__isnull=True) | Q(running_since__lt=now - LEASE)
    progress = {"phase": "starting", "pages": 0, "rows": 0}
    return bool(
        IndexSyncState.objects.filter(free, **endpoint.scope()).update(
            running_since=now, running_full=full, progress=progress
        )
    )
